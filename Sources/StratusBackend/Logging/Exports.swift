// Backends import only StratusBackend; a backend that logs takes swift-log's `Logger`, so the
// SPI brings the `Logging` module with it (`Docs/Logging.md`).
@_exported public import Logging
