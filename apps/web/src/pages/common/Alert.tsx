// Messages for the person: errors are announced at once (role="alert"), confirmations politely
// (role="status"). Both render their text as text.

export function ErrorMessage({ message, id }: { message: string | null; id?: string }) {
  if (message === null || message === '') return null;
  return (
    <p className="message message--error" role="alert" id={id}>
      {message}
    </p>
  );
}

/** Always rendered (empty when quiet) so screen readers hear the change when a message appears. */
export function StatusMessage({ message }: { message: string | null }) {
  return (
    <p className="message message--status" role="status">
      {message ?? ''}
    </p>
  );
}
