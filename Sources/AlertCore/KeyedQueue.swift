import AlertModel

/// Values tagged with a key that never decreases as they are added (a store turn, an event index), removed from the
/// oldest key on: one array and a head index, so adding a value costs no allocation of its own.
public struct KeyedQueue<Value> {
    private var items: [(key: UInt64, value: Value)] = []
    private var head = 0

    public init() {}

    /// Adds `value` under `key`, which is no smaller than any key added before.
    public mutating func append(_ value: Value, key: UInt64) {
        items.append((key, value))
    }

    /// Removes the values of every key up to `key`, oldest first, handing each with its key to `body`.
    public mutating func removeThrough(_ key: UInt64, _ body: (UInt64, Value) -> Void) {
        while head < items.count, items[head].key <= key {
            body(items[head].key, items[head].value)
            head += 1
        }
        if head == items.count {
            items.removeAll(keepingCapacity: items.count <= 4096)
            head = 0
        } else if head > 4096 && head > items.count / 2 {
            items.removeFirst(head)
            head = 0
        }
    }
}
