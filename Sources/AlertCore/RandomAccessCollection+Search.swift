import AlertModel

extension RandomAccessCollection where Index == Int {
    /// The first position whose element's key is not below `key`, in a collection ascending by that key (`endIndex`
    /// when every key is below it): a binary search.
    @inlinable
    public func firstPosition(notBelow key: UInt64, by keyOf: (Element) -> UInt64) -> Int {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if keyOf(self[middle]) < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
