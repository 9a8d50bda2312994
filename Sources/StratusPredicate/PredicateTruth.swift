/// Three-valued (Kleene) logic: a comparison involving an absent field is ``unknown``, and
/// so is its negation, so that neither `x != 'a'` nor `NOT x = 'a'` matches a record without
/// `x`. A predicate matches a record only when it is ``yes``.
enum PredicateTruth: Equatable {
    case yes
    case no
    case unknown

    init(_ flag: Bool) {
        self = flag ? .yes : .no
    }

    static prefix func ! (truth: PredicateTruth) -> PredicateTruth {
        switch truth {
        case .yes: return .no
        case .no: return .yes
        case .unknown: return .unknown
        }
    }

    /// `yes` when some truth is yes; else `unknown` when some is unknown; else `no`.
    static func any(_ truths: some Sequence<PredicateTruth>) -> PredicateTruth {
        var result = PredicateTruth.no
        for truth in truths {
            if truth == .yes { return .yes }
            if truth == .unknown { result = .unknown }
        }
        return result
    }

    /// `no` when some truth is no; else `unknown` when some is unknown; else `yes`.
    static func all(_ truths: some Sequence<PredicateTruth>) -> PredicateTruth {
        var result = PredicateTruth.yes
        for truth in truths {
            if truth == .no { return .no }
            if truth == .unknown { result = .unknown }
        }
        return result
    }
}
