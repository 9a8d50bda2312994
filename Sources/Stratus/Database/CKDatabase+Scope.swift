extension CKDatabase {
    /// Which of a container's databases this is.
    public enum Scope: Int, Sendable, CaseIterable, CustomStringConvertible {
        /// The public database, shared by every user of the app.
        case `public` = 1
        /// The current user's private database.
        case `private` = 2
        /// The database of zones other users share with the current user.
        case shared = 3

        /// A textual description, for logs.
        public var description: String {
            switch self {
            case .public: return "public"
            case .private: return "private"
            case .shared: return "shared"
            }
        }
    }
}
