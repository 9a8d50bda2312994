// The CloudKit API and the operation engine.
