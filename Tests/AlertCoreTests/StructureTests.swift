@testable import AlertCore
import Testing

@Suite("Internal structures")
struct StructureTests {
    @Test("MinHeap pops in ascending order")
    func heap() {
        var heap = MinHeap<Int>()
        let values = (0..<500).map { ($0 * 7919) % 1000 }
        for value in values { heap.insert(value) }
        var popped: [Int] = []
        while let value = heap.removeMin() { popped.append(value) }
        #expect(popped == values.sorted())
        var filtered = MinHeap(values)
        filtered.filter { $0.isMultiple(of: 2) }
        #expect(filtered.count == values.filter { $0.isMultiple(of: 2) }.count)
        #expect(filtered.min == 0)
    }

    @Test("ArrivalQueue keeps live entries in order through removals and compaction")
    func arrivalQueue() {
        var queue = ArrivalQueue()
        for sequence in 1...1000 as ClosedRange<UInt64> { queue.append(sequence) }
        for sequence in 1...1000 as ClosedRange<UInt64> where !sequence.isMultiple(of: 7) {
            let removed = queue.remove(sequence)
            #expect(removed)
        }
        let removedTwice = queue.remove(8)
        #expect(!removedTwice)
        #expect(queue.count == 142)
        #expect(Array(queue.live) == (1...1000).filter { $0.isMultiple(of: 7) })
        #expect(queue.contains(700))
        #expect(!queue.contains(701))
        for sequence in queue.live { queue.remove(sequence) }
        #expect(queue.isEmpty)
        queue.append(2000)
        #expect(Array(queue.live) == [2000])
    }

    @Test("ResolvedIndex drops in resolution order and lists by sequence")
    func resolvedIndex() {
        var index = ResolvedIndex()
        let now = ContinuousClock.now
        for (offset, sequence) in [5, 2, 9, 1].enumerated() {
            index.insert(UInt64(sequence), at: now + .milliseconds(offset))
        }
        #expect(index.bySequence == [1, 2, 5, 9])
        #expect(index.removeOldest()?.sequence == 5)
        #expect(index.removeOldest()?.sequence == 2)
        #expect(index.bySequence == [1, 9])
        #expect(index.oldest?.sequence == 9)
        #expect(index.count == 2)
    }
}
