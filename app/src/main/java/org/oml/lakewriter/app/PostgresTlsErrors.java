package org.oml.lakewriter.app;

import java.sql.SQLException;
import java.util.Locale;
import java.util.Map;

/**
 * Names a connection refused for TLS reasons (docs/postgres-tls.md), so that an operator reads
 * which {@code postgres.url} parameter to set instead of a bare driver message:
 *
 * <ul>
 *   <li>{@code POSTGRES_TLS_REQUIRED}: pg_hba.conf admits the role only over TLS ({@code hostssl})
 *       and the URL connected without it;
 *   <li>{@code POSTGRES_CLIENT_CERTIFICATE}: the server wants a client certificate ({@code cert}
 *       or {@code clientcert=verify-full}) and got none, or one it does not accept;
 *   <li>{@code POSTGRES_TLS_UNAVAILABLE}: the URL demands TLS and the server does not offer it;
 *   <li>{@code POSTGRES_TLS_HANDSHAKE}: the handshake or the server's certificate failed (an
 *       unknown CA, a host name not in the certificate, an unreadable sslrootcert/sslcert/sslkey).
 * </ul>
 */
final class PostgresTlsErrors {
  private PostgresTlsErrors() {}

  /** The named error for {@code e}, or null when it is not about TLS. */
  static ConfigException describe(LakeWriterConfig cfg, SQLException e) {
    String message = e.getMessage() == null ? "" : e.getMessage();
    String lower = message.toLowerCase(Locale.ROOT);
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    String where =
        LakeWriterOptions.POSTGRES_USER.key() + " '" + cfg.user() + "' at "
            + LakeWriterOptions.POSTGRES_URL.key() + " = " + cfg.jdbcUrl() + " (sslmode "
            + sslmode(cfg) + ")";
    if (state.equals("28000") && lower.contains("no encryption")) {
      return new ConfigException(
          "POSTGRES_TLS_REQUIRED: PostgreSQL admits " + where + " only over TLS (pg_hba.conf"
              + " hostssl), and this connection was not encrypted (" + message + "). Add"
              + " sslmode=verify-full&sslrootcert=<the CA's certificate file> to "
              + LakeWriterOptions.POSTGRES_URL.key() + ".", e);
    }
    if (state.equals("28000") && lower.contains("certificate")) {
      return new ConfigException(
          "POSTGRES_CLIENT_CERTIFICATE: PostgreSQL wants a client certificate from " + where
              + " and refused the one given, or got none (" + message + "). Set sslcert (the"
              + " certificate, its CN = the role name for clientcert=verify-full) and sslkey (its"
              + " key, PKCS-8 DER) in " + LakeWriterOptions.POSTGRES_URL.key() + ".", e);
    }
    if (lower.contains("server does not support ssl")) {
      return new ConfigException(
          "POSTGRES_TLS_UNAVAILABLE: " + where + " demands TLS and the server does not offer it"
              + " (" + message + "). Enable ssl on the server (ssl = on, ssl_cert_file,"
              + " ssl_key_file), or point " + LakeWriterOptions.POSTGRES_URL.key()
              + " at one that does.", e);
    }
    if (isTlsFailure(e)) {
      return new ConfigException(
          "POSTGRES_TLS_HANDSHAKE: the TLS connection of " + where + " failed (" + message
              + rootCause(e) + "). Check that sslrootcert names the CA that signed the server's"
              + " certificate, that the host in the URL is one of the certificate's names"
              + " (sslmode=verify-full checks it), and that sslrootcert, sslcert and sslkey are"
              + " readable files.", e);
    }
    return null;
  }

  private static String sslmode(LakeWriterConfig cfg) {
    Map<String, String> params = cfg.jdbcSettings().urlParameters();
    return params.getOrDefault(
        "sslmode", "unset: pgjdbc's prefer, encrypted only if offered, never verified");
  }

  private static boolean isTlsFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof javax.net.ssl.SSLException) {
        return true;
      }
      String m = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
      if (m.contains("ssl error")
          || m.contains("hostnameverifier")
          || m.contains("ssl root certificate")
          || m.contains("ssl key")
          || m.contains("sslcert")
          || m.contains("ssl certificate")) {
        return true;
      }
    }
    return false;
  }

  private static String rootCause(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == e || root.getMessage() == null ? "" : "; cause: " + root.getMessage();
  }
}
