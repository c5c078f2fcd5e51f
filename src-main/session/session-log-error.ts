/** A session log that cannot be read as it is: empty, foreign, cut short. The message says which. */
export class SessionLogError extends Error {
  override name = 'SessionLogError';
}
