import AlertModel

/// An alert id of up to 23 UTF-8 bytes packed with its length into three words: the key of `AlertTable`'s id
/// index.
///
/// A `String` key costs a dictionary a pointer chase and a `memcmp` for every bucket it probes (ids are all 22
/// bytes long, so lengths never tell two apart), and SipHash over heap bytes on every insert and rehash. perf put
/// the id index at a third of a create's time in the store. Three words compare and hash inline.
struct PackedID: Hashable, Sendable {
    private let words: (UInt64, UInt64, UInt64)

    /// The most UTF-8 bytes an id may have to be packed (generated ids have 22).
    static let capacity = 23

    /// Packs `id`, or nil when it is longer than `capacity` bytes.
    init?(_ id: AlertID) {
        var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var text = id.rawValue
        let packed = text.withUTF8 { bytes -> Bool in
            guard bytes.count <= Self.capacity else { return false }
            withUnsafeMutableBytes(of: &words) { raw in
                raw.copyMemory(from: UnsafeRawBufferPointer(bytes))
                raw[Self.capacity] = UInt8(bytes.count)
            }
            return true
        }
        guard packed else { return nil }
        self.words = words
    }

    static func == (lhs: PackedID, rhs: PackedID) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
    }
}
