// MPI errors as JS errors. The addon constructs MpiError itself (setMpiErrorClass), so every MPI
// failure, from any call, is `instanceof MpiError` and carries MPI's own error class and text.

export class MpiError extends Error {
  /** The MPI error class (MPI_Error_class of the code MPI returned). */
  readonly errorClass: number;
  /** Its standard name, e.g. "MPI_ERR_TRUNCATE" ("MPI_ERR_UNKNOWN" for implementation-specific classes). */
  readonly errorClassName: string;
  /** MPI_Error_string of the code MPI returned. */
  readonly errorString: string;

  constructor(message: string, errorClass: number, errorString: string, errorClassName = 'MPI_ERR_UNKNOWN') {
    super(message);
    this.name = 'MpiError';
    this.errorClass = errorClass;
    this.errorClassName = errorClassName;
    this.errorString = errorString;
  }

  /** @deprecated alias of errorClass, kept for code written against the first addon */
  get mpiErrorClass(): number {
    return this.errorClass;
  }

  /** @deprecated alias of errorString */
  get mpiErrorString(): string {
    return this.errorString;
  }
}
