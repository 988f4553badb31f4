package org.oml.lakewriter.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An S3-compatible server for the {@code s3a://} tests: S3Proxy ({@code org.gaul:s3proxy}, from
 * Maven Central, copied to {@code tests/target/s3proxy/s3proxy.jar} by the build) in a child JVM,
 * on a free loopback port, storing objects in a temp directory with its {@code filesystem-nio2}
 * backend, and checking AWS V4 signatures against a random key pair.
 *
 * <p>Why S3Proxy (docs/object-storage.md): it enforces {@code If-None-Match: *} on PutObject
 * atomically (checked by {@code S3ConditionalWriteITCase#theServerEnforcesIfNoneMatch} before
 * anything relies on it). S3Mock 4.12.4 answers 412 to a sequential second PUT but let both of two
 * concurrent PUTs win in about half the rounds, so it was rejected.
 */
public final class S3ProxyServer implements AutoCloseable {
  public static final String REGION = "us-east-1";
  private static final Duration START = Duration.ofSeconds(60);

  private final Process process;
  private final int port;
  private final String identity = "oml-" + UUID.randomUUID().toString().substring(0, 8);
  private final String credential = UUID.randomUUID().toString();
  private final Path log;

  private S3ProxyServer(Path dir) throws IOException {
    Path jar = jar();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "S3Proxy jar not found at "
              + jar
              + " (system property s3proxy.jar): the tests module's build copies it in"
              + " generate-test-resources; run through Maven");
    }
    port = freePort();
    Path data = Files.createDirectories(dir.resolve("s3proxy-data"));
    Path properties = dir.resolve("s3proxy.properties");
    Map<String, String> p = new LinkedHashMap<>();
    p.put("s3proxy.endpoint", "http://127.0.0.1:" + port);
    p.put("s3proxy.authorization", "aws-v2-or-v4");
    p.put("s3proxy.identity", identity);
    p.put("s3proxy.credential", credential);
    p.put("jclouds.provider", "filesystem-nio2");
    p.put("jclouds.filesystem.basedir", data.toString());
    StringBuilder text = new StringBuilder();
    p.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    Files.writeString(properties, text.toString(), StandardCharsets.UTF_8);
    log = dir.resolve("s3proxy.log");
    process =
        new ProcessBuilder(
                ChildJvm.command(
                    "-Xmx256m", "-jar", jar.toString(), "--properties", properties.toString()))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    awaitListening();
  }

  /** Starts a server whose state lives under {@code dir}. */
  /**
   * The system property {@code s3proxy.jar} (the tests module's POM sets it), else the copy the
   * module's build makes, seen from the module (surefire) or from the repository's root (a
   * benchmark's {@code main}).
   */
  private static Path jar() {
    String set = System.getProperty("s3proxy.jar");
    if (set != null) {
      return Paths.get(set);
    }
    Path fromModule = Paths.get("target/s3proxy/s3proxy.jar");
    Path fromRoot = Paths.get("tests").resolve(fromModule);
    boolean atRoot = !Files.isRegularFile(fromModule) && Files.isRegularFile(fromRoot);
    return atRoot ? fromRoot : fromModule;
  }

  public static S3ProxyServer start(Path dir) {
    try {
      return new S3ProxyServer(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** A plain SDK client (path-style, signed) for setting up buckets and probing the server. */
  public S3Client client() {
    return S3Client.builder()
        .endpointOverride(endpoint())
        .region(Region.of(REGION))
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(identity, credential)))
        .build();
  }

  public void createBucket(String bucket) {
    try (S3Client s3 = client()) {
      s3.createBucket(b -> b.bucket(bucket));
    }
  }

  /**
   * The Hadoop options that point S3A at this server, as {@code lake.hadoop.*} passes them (keys
   * without that prefix).
   */
  public Map<String, String> s3aOptions() {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("fs.s3a.endpoint", endpoint().toString());
    o.put("fs.s3a.endpoint.region", REGION);
    o.put("fs.s3a.path.style.access", "true");
    o.put("fs.s3a.connection.ssl.enabled", "false");
    o.put("fs.s3a.access.key", identity);
    o.put("fs.s3a.secret.key", credential);
    o.put(
        "fs.s3a.aws.credentials.provider",
        "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    // A test's failures should surface in seconds, not after S3A's default back-off.
    o.put("fs.s3a.attempts.maximum", "3");
    o.put("fs.s3a.retry.limit", "3");
    return o;
  }

  /** The server's output, for a failure message. */
  public String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private void awaitListening() throws IOException {
    long deadline = System.nanoTime() + START.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("S3Proxy exited with " + process.exitValue() + ":\n" + log());
      }
      try (Socket s = new Socket("127.0.0.1", port)) {
        return;
      } catch (IOException notYet) {
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while S3Proxy starts", e);
        }
      }
    }
    close();
    throw new IOException(
        "S3Proxy did not listen on port " + port + " within " + START + ":\n" + log());
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
