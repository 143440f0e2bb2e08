import AlertModel

extension AlertStore {
    /// Lists alerts oldest first (by creation), with the change index.
    ///
    /// Pending alerts come from arrival-order indexes, so a page costs O(limit); resolved alerts are bounded by
    /// retention. `all` merges both by creation order.
    ///
    /// - Parameters:
    ///   - query: Which alerts and how many.
    /// - Returns: Up to `query.limit` alerts after `query.after` and the change index.
    public func list(_ query: ListQuery) -> AlertPage {
        guard query.limit > 0 else { return AlertPage(alerts: [], index: changeIndex) }
        let after = query.after
        let pending = pendingSequences(query).drop { sequence in after.map { sequence <= $0 } ?? false }
        let resolved = resolvedSequences(query).drop { sequence in after.map { sequence <= $0 } ?? false }
        let sequences: [UInt64] = switch query.state {
        case .pending: Array(pending.prefix(query.limit))
        case .resolved: Array(resolved.prefix(query.limit))
        case .all: Self.merge(pending, resolved, limit: query.limit)
        }
        return AlertPage(alerts: records.alerts(sequences), index: changeIndex)
    }

    /// Pending sequence numbers, ascending, that match the query's presenter and owner.
    ///
    /// Each filter alone walks its own queue; both walk the owner's queue and check the presenter.
    private func pendingSequences(_ query: ListQuery) -> LazyFilterSequence<ArraySlice<UInt64>> {
        switch (query.presenter, query.owner) {
        case (nil, nil):
            return pendingQueue.live
        case (let presenter?, nil):
            return (keyedQueues[.presenter(presenter)] ?? ArrivalQueue()).live
        case (let presenter, let owner?):
            let live = (keyedQueues[.owner(owner)] ?? ArrivalQueue()).live
            guard let presenter else { return live }
            let records = records
            return live.filter { records[$0]?.presenter == presenter }
        }
    }

    /// Kept resolved sequence numbers, ascending, that match the query's presenter and owner.
    private func resolvedSequences(_ query: ListQuery) -> LazyFilterSequence<[UInt64]> {
        let records = records
        let presenter = query.presenter
        let owner = query.owner
        return resolvedIndex.bySequence.lazy.filter { sequence in
            guard presenter != nil || owner != nil else { return true }
            guard let alert = records[sequence] else { return false }
            return (presenter == nil || alert.presenter == presenter) && (owner == nil || alert.owner == owner)
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
