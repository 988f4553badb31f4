package org.oml.lakewriter.validate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.testing.Events;

class EventValidatorTest {
  private static final int MAX_BODY = 1_024;
  private static final byte[] BODY = Events.sealedBody();

  private final EventValidator validator = new EventValidator(MAX_BODY);

  /** How to clear each column a kind can require. */
  private static final Map<String, UnaryOperator<OutboxEvent.Builder>> CLEAR =
      new LinkedHashMap<>();

  static {
    CLEAR.put("event_time", b -> b.eventTimeMicros(null));
    CLEAR.put("envelope", b -> b.envelope(null));
    CLEAR.put("artifact_id", b -> b.artifactId(null));
    CLEAR.put("artifact_version", b -> b.artifactVersion(null));
    CLEAR.put("workarea_id", b -> b.workareaId(null));
    CLEAR.put("writer_identity", b -> b.writerIdentity(null));
    CLEAR.put("principal", b -> b.principal(null));
    CLEAR.put("ratified_by", b -> b.ratifiedBy(null));
    CLEAR.put("provenance_class", b -> b.provenanceClass(null));
    CLEAR.put("plaintext_digest", b -> b.plaintextDigest(null));
    CLEAR.put("ciphertext_digest", b -> b.ciphertextDigest(null));
    CLEAR.put("body", b -> b.body(null));
    CLEAR.put("data_key_id", b -> b.dataKeyId(null));
    CLEAR.put("path_at_write", b -> b.pathAtWrite(null));
  }

  /** What the contract says each kind must carry. */
  private static List<String> required(EventKind kind) {
    switch (kind) {
      case JOURNAL:
        return List.of("event_time", "envelope");
      case MATERIALIZE:
        return List.of(
            "event_time",
            "artifact_id",
            "artifact_version",
            "workarea_id",
            "writer_identity",
            "principal",
            "ratified_by",
            "provenance_class",
            "plaintext_digest",
            "ciphertext_digest",
            "body",
            "data_key_id");
      case REASSIGN:
        return List.of("event_time", "artifact_id", "artifact_version", "workarea_id");
      case WORKAREA_VALIDATED:
        return List.of("event_time", "workarea_id", "writer_identity", "path_at_write");
      case WORKAREA_INVALIDATED:
        return List.of("event_time", "workarea_id", "writer_identity");
      default:
        return List.of("event_time", "artifact_id", "artifact_version");
    }
  }

  /** A valid row of {@code kind} that carries its required fields and nothing else. */
  private static OutboxEvent.Builder minimal(EventKind kind) {
    if (kind == EventKind.MATERIALIZE) {
      return Events.materialize(10, BODY).pathAtWrite(null);
    }
    OutboxEvent.Builder b =
        OutboxEvent.builder().seq(10).txId(77).tenantId("acme").kind(kind).eventTimeMicros(5L);
    switch (kind) {
      case JOURNAL:
        return b.envelope("{\"digest\":\"abc\",\"sig\":\"xyz\"}");
      case REASSIGN:
        return b.artifactId("art-1").artifactVersion(2L).workareaId("wa-2");
      case WORKAREA_VALIDATED:
        return b.workareaId("wa-2").writerIdentity("reviewer").pathAtWrite("/teams/a");
      case WORKAREA_INVALIDATED:
        return b.workareaId("wa-2").writerIdentity("reviewer");
      default:
        return b.artifactId("art-1").artifactVersion(2L);
    }
  }

  static Stream<Arguments> requiredFields() {
    List<Arguments> cases = new ArrayList<>();
    for (EventKind kind : EventKind.values()) {
      for (String field : required(kind)) {
        cases.add(Arguments.of(kind, field));
      }
    }
    return cases.stream();
  }

  @ParameterizedTest
  @EnumSource(EventKind.class)
  void aValidRowOfEachKindPassesUnchanged(EventKind kind) {
    OutboxEvent row = minimal(kind).build();

    OutboxEvent checked = validator.validate(row);

    assertThat(checked.error()).isNull();
    assertThat(checked).isEqualTo(row);
  }

  @ParameterizedTest
  @MethodSource("requiredFields")
  void aMissingRequiredFieldIsNamed(EventKind kind, String field) {
    OutboxEvent row = CLEAR.get(field).apply(minimal(kind)).build();

    assertThat(validator.validate(row).error())
        .isEqualTo(new RowError(ErrorClass.MISSING_FIELD, kind.wireName() + " row lacks " + field));
  }

  @Test
  void fieldsOfOtherKindsAreNotRequired() {
    // Every column a journal row does not need is null; only materialize needs a body.
    OutboxEvent journal = minimal(EventKind.JOURNAL).build();
    OutboxEvent demote = minimal(EventKind.DEMOTE).build();

    assertThat(journal.artifactId()).isNull();
    assertThat(validator.validate(journal).isValid()).isTrue();
    assertThat(demote.body()).isNull();
    assertThat(validator.validate(demote).isValid()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"Journal", "JOURNAL", "journal ", "promote", ""})
  void anUnknownKindIsRejected(String kind) {
    OutboxEvent row = minimal(EventKind.JOURNAL).kind(kind).build();

    RowError error = validator.validate(row).error();

    assertThat(error.errorClass()).isEqualTo(ErrorClass.UNKNOWN_KIND);
    assertThat(error.message()).contains("'" + kind + "'");
  }

  @Test
  void aNullKindIsUnknown() {
    OutboxEvent row = minimal(EventKind.JOURNAL).kind((String) null).build();

    assertThat(errorClassOf(row)).isEqualTo(ErrorClass.UNKNOWN_KIND);
  }

  @Test
  void theKindIsCheckedBeforeTheTenant() {
    OutboxEvent row = minimal(EventKind.JOURNAL).kind("bogus").tenantId("../etc").build();

    assertThat(errorClassOf(row)).isEqualTo(ErrorClass.UNKNOWN_KIND);
  }

  static Stream<String> invalidTenants() {
    return Stream.of(
        "Acme",
        "ACME",
        "-acme",
        "_acme",
        "a".repeat(64),
        "",
        "../x",
        "..",
        "a/b",
        "acme/../b",
        "a\\b",
        "acme ",
        " acme",
        "acme\n",
        "ácme",
        "a.b",
        "a:b");
  }

  @ParameterizedTest
  @MethodSource("invalidTenants")
  void anInvalidTenantIsRejected(String tenant) {
    OutboxEvent row = minimal(EventKind.JOURNAL).tenantId(tenant).build();

    assertThat(errorClassOf(row)).isEqualTo(ErrorClass.INVALID_TENANT);
    assertThat(EventValidator.isValidTenant(tenant)).isFalse();
  }

  @Test
  void aNullTenantIsRejected() {
    OutboxEvent row = minimal(EventKind.DEMOTE).tenantId(null).build();

    assertThat(errorClassOf(row)).isEqualTo(ErrorClass.INVALID_TENANT);
    assertThat(EventValidator.isValidTenant(null)).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"a", "0", "9lives", "acme_prod-1", "a-", "a_"})
  void edgeTenantsAreValid(String tenant) {
    OutboxEvent row = minimal(EventKind.JOURNAL).tenantId(tenant).build();

    assertThat(validator.validate(row).isValid()).isTrue();
  }

  @Test
  void sixtyThreeCharactersIsTheLongestTenant() {
    String longest = "a" + "b1_-".repeat(15) + "zz";

    assertThat(longest).hasSize(63);
    assertThat(validator.validate(minimal(EventKind.ERASE).tenantId(longest).build()).isValid())
        .isTrue();
    assertThat(EventValidator.isValidTenant(longest + "z")).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"not json", "{\"a\":", "[1,2]", "[]", "\"text\"", "42", "null"})
  void aJournalEnvelopeMustBeAJsonObject(String envelope) {
    OutboxEvent row = minimal(EventKind.JOURNAL).envelope(envelope).build();

    assertThat(errorClassOf(row)).isEqualTo(ErrorClass.UNPARSEABLE_ENVELOPE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   "})
  void aBlankRequiredFieldIsMissing(String blank) {
    assertThat(errorClassOf(minimal(EventKind.JOURNAL).envelope(blank).build()))
        .isEqualTo(ErrorClass.MISSING_FIELD);
    OutboxEvent selfRatified = minimal(EventKind.MATERIALIZE).ratifiedBy(blank).build();
    assertThat(errorClassOf(selfRatified)).isEqualTo(ErrorClass.MISSING_FIELD);
  }

  @ParameterizedTest
  @ValueSource(strings = {"{\"a\":1} trailing", "{}{}", "{} []"})
  void aJournalEnvelopeWithTrailingContentIsNotAJsonObject(String envelope) {
    OutboxEvent row = minimal(EventKind.JOURNAL).envelope(envelope).build();

    assertThat(errorClassOf(row)).isEqualTo(ErrorClass.UNPARSEABLE_ENVELOPE);
  }

  @Test
  void aNestedEnvelopeObjectIsAccepted() {
    OutboxEvent row =
        minimal(EventKind.JOURNAL).envelope(" {\"sig\":{\"alg\":\"ed25519\"},\"d\":[1]} ").build();

    assertThat(validator.validate(row).isValid()).isTrue();
  }

  @Test
  void aMaterializeRatifiedByItsOwnWriterIsAHeldBody() {
    OutboxEvent row = minimal(EventKind.MATERIALIZE).ratifiedBy("agent:writer").build();

    RowError error = validator.validate(row).error();

    assertThat(error.errorClass()).isEqualTo(ErrorClass.UNRATIFIED_BODY);
    assertThat(error.errorClass().isPermanent()).isTrue();
  }

  @Test
  void aBodyOverTheLimitIsRejectedAndOneAtTheLimitIsNot() {
    byte[] atLimit = new byte[MAX_BODY];
    byte[] overLimit = new byte[MAX_BODY + 1];
    atLimit[0] = 0x01; // the shape of a Tink ciphertext (validate/TinkCiphertext)
    atLimit[7] = 1;

    OutboxEvent at = Events.materialize(1, atLimit).build();
    OutboxEvent over = Events.materialize(2, overLimit).build();

    assertThat(validator.validate(at).isValid()).isTrue();
    assertThat(errorClassOf(over)).isEqualTo(ErrorClass.BODY_TOO_LARGE);
  }

  /** Issue 16: a producer that forgot to encrypt; its digest is right, its body is plaintext. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "# my private note: the launch code is 1234 and this text is long enough",
        "{\"text\":\"a JSON body that is plaintext, longer than 33 bytes\"}",
        "tiny"
      })
  void aPlaintextBodyWithItsOwnDigestIsAPlaintextBody(String text) {
    byte[] plain = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    OutboxEvent row =
        minimal(EventKind.MATERIALIZE).body(plain).ciphertextDigest(Events.sha256Hex(plain)).build();

    RowError error = validator.validate(row).error();

    assertThat(error.errorClass()).isEqualTo(ErrorClass.PLAINTEXT_BODY);
    assertThat(error.errorClass().isPermanent()).isTrue();
    assertThat(error.message()).contains("Tink").doesNotContain(text);
  }

  @Test
  void aBodyOfTheShapeOfATinkCiphertextIsAdmittedAndOneByteShortIsNot() {
    byte[] smallest = new byte[TinkCiphertext.MIN_BYTES];
    smallest[0] = TinkCiphertext.TINK_START_BYTE;
    byte[] tooShort = java.util.Arrays.copyOf(smallest, TinkCiphertext.MIN_BYTES - 1);
    byte[] legacyPrefix = smallest.clone();
    legacyPrefix[0] = 0x00;

    assertThat(validator.validate(withBody(smallest)).isValid()).isTrue();
    assertThat(errorClassOf(withBody(tooShort))).isEqualTo(ErrorClass.PLAINTEXT_BODY);
    assertThat(errorClassOf(withBody(legacyPrefix))).isEqualTo(ErrorClass.PLAINTEXT_BODY);
  }

  /**
   * Tink's envelope encryption (KmsEnvelopeAead): the wrapped data key's length, the wrapped key,
   * then the AEAD output. A length that leaves no room for an AEAD output is not that layout.
   */
  @Test
  void aBodyInTheLayoutOfKmsEnvelopeAeadIsAdmitted() {
    int wrappedKey = 40;
    byte[] envelope = new byte[4 + wrappedKey + TinkCiphertext.MIN_AEAD_BYTES];
    envelope[3] = (byte) wrappedKey;
    envelope[4] = TinkCiphertext.TINK_START_BYTE; // a Tink KEK's own prefix, not required
    byte[] noRoomForThePayload = envelope.clone();
    noRoomForThePayload[3] = (byte) (wrappedKey + 1);
    byte[] zeroLength = envelope.clone();
    zeroLength[3] = 0;

    assertThat(validator.validate(withBody(envelope)).isValid()).isTrue();
    assertThat(errorClassOf(withBody(noRoomForThePayload))).isEqualTo(ErrorClass.PLAINTEXT_BODY);
    assertThat(errorClassOf(withBody(zeroLength))).isEqualTo(ErrorClass.PLAINTEXT_BODY);
  }

  private static OutboxEvent withBody(byte[] body) {
    return minimal(EventKind.MATERIALIZE).body(body).ciphertextDigest(Events.sha256Hex(body)).build();
  }

  @Test
  void aDigestThatDoesNotMatchTheBodyIsRejected() {
    byte[] other = BODY.clone();
    other[0] ^= 1;
    OutboxEvent row =
        minimal(EventKind.MATERIALIZE).ciphertextDigest(Events.sha256Hex(other)).build();

    assertThat(errorClassOf(row)).isEqualTo(ErrorClass.DIGEST_MISMATCH);
  }

  @Test
  void anUpperCaseHexDigestIsTheSameDigest() {
    String upper = Events.sha256Hex(BODY).toUpperCase(Locale.ROOT);
    OutboxEvent row = minimal(EventKind.MATERIALIZE).ciphertextDigest(upper).build();

    assertThat(validator.validate(row).isValid()).isTrue();
    assertThat(EventValidator.sha256Hex(BODY)).isEqualTo(Events.sha256Hex(BODY));
  }

  @Test
  void anExistingErrorIsKept() {
    RowError malformed = new RowError(ErrorClass.MALFORMED_ROW, "artifact_version is String");
    OutboxEvent row =
        minimal(EventKind.JOURNAL).kind("bogus").tenantId("BAD").error(malformed).build();

    assertThat(validator.validate(row).error()).isEqualTo(malformed);
  }

  /**
   * The error class the validator gives, or null: a failure then reads "expected X but was null".
   */
  /**
   * Stop 52's one token pass answers every envelope as stop 51's check did: the token pass (syntax
   * and depth), then a tree parse that refused trailing tokens and a value other than an object.
   */
  @Test
  void theOneTokenPassAnswersEnvelopesAsTheTokenPassAndTreeParseDid() throws Exception {
    List<String> envelopes =
        new ArrayList<>(
            List.of(
                "{}", "{} {}", "5 {}", "{} ]", "[] {}", "{} 5", " {} ", "{\"a\":1} trailing", "[",
                "null", "\"s\"", "{\"a\":" + "[".repeat(70) + "]".repeat(70) + "}",
                "{} " + "[".repeat(70), "[".repeat(64) + "]".repeat(64)));
    String base = "{\"sig\":{\"alg\":\"ed25519\",\"k\":[1,2,{\"x\":null}]},\"d\":\"abc\"}";
    String alphabet = "{}[]\":,1a ";
    java.util.Random random = new java.util.Random(52);
    for (int i = 0; i < 20_000; i++) {
      StringBuilder b = new StringBuilder(random.nextBoolean() ? base : "{}");
      for (int e = random.nextInt(3); e >= 0; e--) {
        int at = random.nextInt(b.length() + 1);
        char c = alphabet.charAt(random.nextInt(alphabet.length()));
        if (random.nextBoolean() || at == b.length()) {
          b.insert(at, c);
        } else {
          b.setCharAt(at, c);
        }
      }
      envelopes.add(b.toString());
    }
    Map<String, Integer> seen = new java.util.TreeMap<>();
    envelopes.removeIf(String::isBlank); // a blank envelope is missing, before any parse
    for (String envelope : envelopes) {
      RowError error = validator.validate(minimal(EventKind.JOURNAL).envelope(envelope).build())
          .error();
      String now = error == null ? "ok" : category(error.message());
      assertThat(now).as(envelope).isEqualTo(stop51Check(envelope));
      seen.merge(now, 1, Integer::sum);
    }
    assertThat(seen).as("every answer is reached").containsOnlyKeys("ok", "json", "object", "deep");
    assertThat(seen.values()).allSatisfy(n -> assertThat(n).isGreaterThan(0));
  }

  private static String category(String message) {
    return message.contains("nested deeper")
        ? "deep"
        : message.contains("not a JSON object") ? "object" : message.contains("not JSON") ? "json"
            : message;
  }

  private static String stop51Check(String envelope) throws Exception {
    var json =
        new org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper()
            .enable(
                org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind
                    .DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    try {
      int depth = 0;
      try (var parser = json.getFactory().createParser(envelope)) {
        for (var token = parser.nextToken(); token != null; token = parser.nextToken()) {
          if (token.isStructStart() && ++depth > EventValidator.MAX_ENVELOPE_DEPTH) {
            return "deep";
          } else if (token.isStructEnd()) {
            depth--;
          }
        }
      }
      var node = json.readTree(envelope.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return node == null || !node.isObject() ? "object" : "ok";
    } catch (java.io.IOException e) {
      return "json";
    }
  }

  private ErrorClass errorClassOf(OutboxEvent row) {
    RowError error = validator.validate(row).error();
    return error == null ? null : error.errorClass();
  }

  @Test
  void refusesALimitThatIsNotPositive() {
    assertThatThrownBy(() -> new EventValidator(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
