extension AlertStore {
    /// Lists alerts oldest first (by creation), with the change index.
    ///
    /// Pending alerts come from arrival-order indexes, so a page costs O(limit); resolved alerts are bounded by
    /// retention. `all` merges both by creation order.
    ///
    /// - Parameters:
    ///   - query: Which alerts and how many.
    /// - Returns: Up to `query.limit` alerts and the change index.
    public func list(_ query: ListQuery) -> AlertPage {
        guard query.limit > 0 else { return AlertPage(alerts: [], index: changeIndex) }
        let sequences: [UInt64] = switch query.state {
        case .pending: Array(pendingSequences(presenter: query.presenter).prefix(query.limit))
        case .resolved: Array(resolvedSequences(presenter: query.presenter).prefix(query.limit))
        case .all:
            Self.merge(
                pendingSequences(presenter: query.presenter),
                resolvedSequences(presenter: query.presenter),
                limit: query.limit
            )
        }
        return AlertPage(alerts: records.alerts(sequences), index: changeIndex)
    }

    /// Pending sequence numbers, ascending, for one presenter or all.
    private func pendingSequences(presenter: String?) -> LazyFilterSequence<ArraySlice<UInt64>> {
        guard let presenter else { return pendingQueue.live }
        return (presenterQueues[presenter] ?? ArrivalQueue()).live
    }

    /// Kept resolved sequence numbers, ascending, for one presenter or all.
    private func resolvedSequences(presenter: String?) -> LazyFilterSequence<[UInt64]> {
        let records = records
        return resolvedIndex.bySequence.lazy.filter { sequence in
            presenter == nil || records[sequence]?.presenter == presenter
        }
    }

    /// The first `limit` elements of two ascending sequences merged.
    private static func merge<A: Sequence<UInt64>, B: Sequence<UInt64>>(_ a: A, _ b: B, limit: Int) -> [UInt64] {
        var merged: [UInt64] = []
        merged.reserveCapacity(min(limit, 1024))
        var left = a.makeIterator()
        var right = b.makeIterator()
        var nextLeft = left.next()
        var nextRight = right.next()
        while merged.count < limit {
            switch (nextLeft, nextRight) {
            case let (l?, r?) where l < r:
                merged.append(l)
                nextLeft = left.next()
            case let (_, r?):
                merged.append(r)
                nextRight = right.next()
            case let (l?, nil):
                merged.append(l)
                nextLeft = left.next()
            case (nil, nil):
                return merged
            }
        }
        return merged
    }
}
