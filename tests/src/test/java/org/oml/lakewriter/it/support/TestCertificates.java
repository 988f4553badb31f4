package org.oml.lakewriter.it.support;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away PKI made at test time, in pure Java (Bouncy Castle): a CA, a server certificate for
 * {@code localhost} / {@code 127.0.0.1} / {@code ::1} signed by it, a client certificate whose CN
 * is a role name (for {@code clientcert=verify-full}), and a second, unrelated CA to show that
 * {@code sslmode=verify-full} refuses a server it cannot vouch for.
 *
 * <p>Files, as PostgreSQL and pgjdbc read them: certificates in PEM; the server's key in PKCS-8
 * PEM with mode 0600 (PostgreSQL refuses a key others can read); the client's key in PKCS-8 DER
 * ({@code .pk8}, pgjdbc's {@code sslkey} format).
 */
public record TestCertificates(
    Path caCert, Path serverCert, Path serverKey, Path clientCert, Path clientKey, Path otherCaCert) {
  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  public static TestCertificates create(Path dir, String clientCommonName)
      throws IOException, GeneralSecurityException, OperatorCreationException {
    Files.createDirectories(dir);
    KeyPair ca = rsa();
    X509Certificate caCert = ca(ca, "oml-test-ca");
    KeyPair server = rsa();
    X509Certificate serverCert =
        leaf(
            "localhost",
            server,
            ca,
            caCert,
            KeyPurposeId.id_kp_serverAuth,
            new GeneralNames(
                new GeneralName[] {
                  new GeneralName(GeneralName.dNSName, "localhost"),
                  new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                  new GeneralName(GeneralName.iPAddress, "::1")
                }));
    KeyPair client = rsa();
    X509Certificate clientCert =
        leaf(clientCommonName, client, ca, caCert, KeyPurposeId.id_kp_clientAuth, null);
    KeyPair other = rsa();
    X509Certificate otherCa = ca(other, "some-other-ca");

    TestCertificates files =
        new TestCertificates(
            dir.resolve("ca.crt"),
            dir.resolve("server.crt"),
            dir.resolve("server.key"),
            dir.resolve("client.crt"),
            dir.resolve("client.pk8"),
            dir.resolve("other-ca.crt"));
    Files.writeString(files.caCert(), pem(caCert));
    Files.writeString(files.serverCert(), pem(serverCert));
    Files.writeString(files.serverKey(), pkcs8Pem(server.getPrivate()));
    Files.setPosixFilePermissions(files.serverKey(), PosixFilePermissions.fromString("rw-------"));
    Files.writeString(files.clientCert(), pem(clientCert));
    Files.write(files.clientKey(), client.getPrivate().getEncoded());
    Files.setPosixFilePermissions(files.clientKey(), PosixFilePermissions.fromString("rw-------"));
    Files.writeString(files.otherCaCert(), pem(otherCa));
    return files;
  }

  private static KeyPair rsa() throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    return g.generateKeyPair();
  }

  private static X509Certificate ca(KeyPair key, String cn)
      throws IOException, GeneralSecurityException, OperatorCreationException {
    X500Name name = new X500Name("CN=" + cn);
    X509v3CertificateBuilder b = builder(name, name, key);
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
    b.addExtension(
        Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    return sign(b, key.getPrivate());
  }

  private static X509Certificate leaf(
      String cn,
      KeyPair key,
      KeyPair ca,
      X509Certificate caCert,
      KeyPurposeId purpose,
      GeneralNames altNames)
      throws IOException, GeneralSecurityException, OperatorCreationException {
    X509v3CertificateBuilder b =
        builder(
            X500Name.getInstance(caCert.getSubjectX500Principal().getEncoded()),
            new X500Name("CN=" + cn),
            key);
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
    b.addExtension(
        Extension.keyUsage,
        true,
        new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
    b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
    if (altNames != null) {
      b.addExtension(Extension.subjectAlternativeName, false, altNames);
    }
    return sign(b, ca.getPrivate());
  }

  private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair key) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(
        issuer,
        BigInteger.valueOf(SERIAL.incrementAndGet()),
        Date.from(now.minus(Duration.ofHours(1))),
        Date.from(now.plus(Duration.ofDays(2))),
        subject,
        key.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey signer)
      throws GeneralSecurityException, OperatorCreationException {
    return new JcaX509CertificateConverter()
        .getCertificate(b.build(new JcaContentSignerBuilder("SHA256withRSA").build(signer)));
  }

  private static String pem(X509Certificate cert) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(cert);
    }
    return out.toString();
  }

  private static String pkcs8Pem(PrivateKey key) {
    return "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
            .encodeToString(key.getEncoded())
        + "\n-----END PRIVATE KEY-----\n";
  }
}
