import Logging

/// Canopy's loggers, one per part of the framework. The framework never writes to standard error
/// itself: what these log goes to the handler the app chooses with swift-log's
/// `LoggingSystem.bootstrap` (without one, swift-log's default prints to standard error).
package enum Log {
    /// The collection: its data source answering against its own item count, and other misuse
    /// that Canopy survives.
    package static let collection = Logger(label: "canopy.collection")
}
