package org.oml.lakewriter.delta.logstore;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
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
 * {@code listFrom} on S3A with a start-after LIST: the entries of a {@code _delta_log} from a
 * name on, in requests proportional to what is returned, not to the whole log. Hadoop's listing
 * has no start: the inherited {@code listFrom} checks that the directory exists and lists all of
 * it (one request per 1,000 keys), and the log keeps every commit file and checksum for {@code
 * delta.logRetentionDuration} (30 days): hundreds of thousands of keys for a table that commits
 * every few seconds, listed again at every snapshot load.
 *
 * <p>It returns what the inherited listing returns: the files and subdirectories (common
 * prefixes) directly under the directory whose names are at or after the start, sorted by name,
 * as S3A's own statuses would give them, and {@link FileNotFoundException} when the directory has
 * no entry at all. It uses S3A's own SDK client, so endpoint, credentials, TLS and retries are
 * S3A's ({@code lake.hadoop.fs.s3a.*}).
 */
final class S3LogListing {
  private S3LogListing() {}

  static List<FileStatus> listFrom(S3AFileSystem fs, Path path) throws IOException {
    Path dir = fs.makeQualified(path.getParent());
    String prefix = fs.pathToKey(dir) + "/";
    String start = path.getName();
    long blockSize = fs.getDefaultBlockSize(dir);
    // S3's start-after is exclusive: start just before the start name's last character, and keep
    // names at or after it.
    ListObjectsV2Request request =
        ListObjectsV2Request.builder()
            .bucket(fs.getBucket())
            .prefix(prefix)
            .delimiter("/")
            .startAfter(prefix + start.substring(0, start.length() - 1))
            .build();
    List<FileStatus> listed = new ArrayList<>();
    try {
      S3Client s3 = fs.getS3AInternals().getAmazonS3Client("listFrom");
      for (ListObjectsV2Response page : s3.listObjectsV2Paginator(request)) {
        for (S3Object object : page.contents()) {
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
        for (CommonPrefix sub : page.commonPrefixes()) {
          String key = sub.prefix().substring(0, sub.prefix().length() - 1);
          if (key.substring(prefix.length()).compareTo(start) >= 0) {
            listed.add(new FileStatus(0, true, 1, 0, 0, fs.keyToQualifiedPath(key)));
          }
        }
      }
      if (listed.isEmpty() && isEmpty(s3, fs.getBucket(), prefix)) {
        throw new FileNotFoundException("No such file or directory: " + dir);
      }
    } catch (SdkException e) {
      throw S3AUtils.translateException("listFrom", dir, e);
    }
    listed.sort(Comparator.comparing(status -> status.getPath().getName()));
    return listed;
  }

  /** No key at all under {@code prefix}: neither an entry nor a directory marker. */
  private static boolean isEmpty(S3Client s3, String bucket, String prefix) {
    return s3.listObjectsV2(b -> b.bucket(bucket).prefix(prefix).maxKeys(1)).keyCount() == 0;
  }
}
