/// Every database endpoint this server answers (decision 0012.4's table, as far as built).
enum DatabaseOperations {
    static let all: [DatabaseOperation] =
        [
            RecordsModify.operation, RecordsLookup.operation, ZoneChangesEndpoints.recordsChanges,
            ZoneChangesEndpoints.changesZone, DatabaseChangesEndpoints.changesDatabase,
            DatabaseChangesEndpoints.zonesChanges, ZoneEndpoints.list, ZoneEndpoints.lookup, ZoneEndpoints.modify,
            RecordsQuery.operation, UsersEndpoints.caller, UsersEndpoints.current, SubscriptionEndpoints.list,
            SubscriptionEndpoints.lookup, SubscriptionEndpoints.modify,
            AssetUpload.operation, ZoneHistoryPurge.operation,
        ] + LongLivedEndpoints.all + SchemaEndpoints.all
}
