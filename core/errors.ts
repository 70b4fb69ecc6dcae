/**
 * Domain errors. The HTTP layer maps each to a problem+json response; the core never knows HTTP.
 */
export type FieldErrors = Record<string, string[]>;

export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors?: FieldErrors,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends DomainError {
  constructor(message: string, errors?: FieldErrors, code = 'validation_error') {
    super(400, code, message, errors);
  }
}

export class NotFoundError extends DomainError {
  constructor(entity: string, id?: string) {
    super(404, 'not_found', id ? `${entity} ${id} was not found` : `${entity} was not found`);
  }
}

/** A transition the entity's state does not allow (spec: 400 for invalid action transitions). */
export class InvalidStateError extends DomainError {
  constructor(message: string, code = 'invalid_state') {
    super(400, code, message);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string, code = 'conflict') {
    super(409, code, message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message = 'You do not have access to this resource', code = 'forbidden') {
    super(403, code, message);
  }
}

export class UnauthorizedError extends DomainError {
  constructor(message = 'Authentication credentials were not provided or are invalid', code = 'not_authenticated') {
    super(401, code, message);
  }
}

export class TooManyRequestsError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, 'throttled', message);
  }
}
