package org.oml.lakewriter.delta.logstore;

import static org.apache.hadoop.fs.s3a.Constants.DEFAULT_MAX_PAGING_KEYS;
import static org.apache.hadoop.fs.s3a.Constants.MAX_PAGING_KEYS;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.fs.s3a.S3AUtils;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@code listFrom} on S3A with start-after LIST requests: the entries of a {@code _delta_log} from
 * a name on, a page at a time as the caller reads them. Hadoop's listing has no start: the
 * inherited {@code listFrom} checks that the directory exists and lists all of it (one request
 * per 1,000 keys) before returning, and the log keeps every commit file and checksum for {@code
 * delta.logRetentionDuration} (30 days): hundreds of thousands of keys for a table that commits
 * every few seconds. Here a snapshot load, which reads from the last checkpoint on, costs a
 * request per page of what it reads, and the log cleanup, which reads the oldest files and stops
 * at the first one inside the retention, a request per page of what it deletes.
 *
 * <p>It returns what the inherited listing returns: the files and subdirectories (common
 * prefixes) directly under the directory whose names are at or after the start, sorted by name,
 * as S3A's own statuses would give them, and {@link FileNotFoundException} when the directory has
 * no entry at all. It uses S3A's own SDK client and page size ({@code fs.s3a.paging.maximum}), so
 * endpoint, credentials, TLS and retries are S3A's ({@code lake.hadoop.fs.s3a.*}). A failure on a
 * later page is an {@link UncheckedIOException} from the iterator.
 */
final class S3LogListing implements Iterator<FileStatus> {
  private final S3AFileSystem fs;
  private final Path dir;
  private final String prefix;
  private final String start;
  private final long blockSize;
  private final S3Client s3;
  private ListObjectsV2Request next;
  private Iterator<FileStatus> page;

  private S3LogListing(S3AFileSystem fs, Path path) throws IOException {
    this.fs = fs;
    this.dir = fs.makeQualified(path.getParent());
    this.prefix = fs.pathToKey(dir) + "/";
    this.start = path.getName();
    this.blockSize = fs.getDefaultBlockSize(dir);
    this.s3 = fs.getS3AInternals().getAmazonS3Client("listFrom");
    int pageSize = fs.getConf().getInt(MAX_PAGING_KEYS, DEFAULT_MAX_PAGING_KEYS);
    // S3's start-after is exclusive: start just before the start name's last character, and keep
    // names at or after it.
    this.next =
        ListObjectsV2Request.builder()
            .bucket(fs.getBucket())
            .prefix(prefix)
            .delimiter("/")
            .maxKeys(pageSize)
            .startAfter(prefix + start.substring(0, start.length() - 1))
            .build();
  }

  /** The listing of {@code path}'s directory from its name on; its first page is read here. */
  static Iterator<FileStatus> listFrom(S3AFileSystem fs, Path path) throws IOException {
    S3LogListing listing = new S3LogListing(fs, path);
    try {
      listing.page = listing.readPage();
      if (!listing.page.hasNext() && listing.next == null && listing.isEmpty()) {
        throw new FileNotFoundException("No such file or directory: " + listing.dir);
      }
    } catch (SdkException e) {
      throw S3AUtils.translateException("listFrom", listing.dir, e);
    }
    return listing;
  }

  @Override
  public boolean hasNext() {
    while (!page.hasNext() && next != null) {
      try {
        page = readPage();
      } catch (SdkException e) {
        throw new UncheckedIOException(S3AUtils.translateException("listFrom", dir, e));
      }
    }
    return page.hasNext();
  }

  @Override
  public FileStatus next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return page.next();
  }

  /**
   * The next page's entries at or after the start, sorted: S3 returns each page's keys and common
   * prefixes in order, and every entry of a page before the next page's.
   */
  private Iterator<FileStatus> readPage() {
    ListObjectsV2Response response = s3.listObjectsV2(next);
    next =
        Boolean.TRUE.equals(response.isTruncated())
            ? next.toBuilder().continuationToken(response.nextContinuationToken()).build()
            : null;
    List<FileStatus> listed = new ArrayList<>();
    for (S3Object object : response.contents()) {
      String name = object.key().substring(prefix.length());
      if (!name.isEmpty() && name.compareTo(start) >= 0) { // empty: the directory marker
        listed.add(
            new FileStatus(
                object.size(),
                false,
                1,
                blockSize,
                object.lastModified().toEpochMilli(),
                fs.keyToQualifiedPath(object.key())));
      }
    }
    for (CommonPrefix sub : response.commonPrefixes()) {
      String key = sub.prefix().substring(0, sub.prefix().length() - 1);
      if (key.substring(prefix.length()).compareTo(start) >= 0) {
        listed.add(new FileStatus(0, true, 1, 0, 0, fs.keyToQualifiedPath(key)));
      }
    }
    listed.sort(Comparator.comparing(status -> status.getPath().getName()));
    return listed.iterator();
  }

  /** No key at all under the directory: neither an entry nor a directory marker. */
  private boolean isEmpty() {
    return s3.listObjectsV2(b -> b.bucket(fs.getBucket()).prefix(prefix).maxKeys(1)).keyCount()
        == 0;
  }
}
