/// Thrown after a connection was deliberately dropped (the `reset` and `truncate` faults).
struct ConnectionDropped: Error {}
