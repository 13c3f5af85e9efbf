/** Why an account or key operation was refused; the CLI and the dashboard turn these into messages. */
export type Refusal =
  | 'invalid_email'
  | 'email_taken'
  | 'weak_password'
  | 'unknown_plan'
  | 'no_such_account'
  | 'no_such_key'
  | 'key_limit'
  | 'ambiguous_key'
  | 'invalid_name'
  | 'own_account';

/** The result of an operation that can be refused for a reason the user can fix. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; reason: Refusal; message: string };

/** A successful outcome. */
export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });

/** A refused outcome with a message fit to show the user. */
export const refuse = <T = never>(reason: Refusal, message: string): Outcome<T> => ({ ok: false, reason, message });
