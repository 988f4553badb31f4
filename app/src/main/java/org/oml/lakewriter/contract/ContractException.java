package org.oml.lakewriter.contract;

/**
 * The database does not meet the outbox contract. The message says what is wrong and what to run.
 */
public final class ContractException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ContractException(String message) {
    super(message);
  }

  public ContractException(String message, Throwable cause) {
    super(message, cause);
  }
}
