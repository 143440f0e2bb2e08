import AlertModel

/// A binary min-heap: `min` in O(1), `insert` and `removeMin` in O(log n).
struct MinHeap<Element: Comparable> {
    private(set) var elements: [Element] = []

    /// Creates a heap from any elements in O(n).
    init<S: Sequence>(_ elements: S) where S.Element == Element {
        self.elements = Array(elements)
        var index = self.elements.count / 2
        while index > 0 {
            index -= 1
            siftDown(from: index)
        }
    }

    /// Creates an empty heap.
    init() {}

    /// The number of elements.
    var count: Int { elements.count }

    /// Whether the heap is empty.
    var isEmpty: Bool { elements.isEmpty }

    /// The smallest element, if any.
    var min: Element? { elements.first }

    /// Adds an element.
    mutating func insert(_ element: Element) {
        elements.append(element)
        siftUp(from: elements.count - 1)
    }

    /// Removes and returns the smallest element, if any.
    @discardableResult
    mutating func removeMin() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let smallest = elements.removeLast()
        if !elements.isEmpty { siftDown(from: 0) }
        return smallest
    }

    /// Keeps only the elements for which `isIncluded` is true, in O(n).
    mutating func filter(_ isIncluded: (Element) -> Bool) {
        self = MinHeap(elements.filter(isIncluded))
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child] < elements[parent] else { return }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < elements.count else { return }
            let right = left + 1
            var smallest = right < elements.count && elements[right] < elements[left] ? right : left
            if !(elements[smallest] < elements[parent]) { smallest = parent }
            guard smallest != parent else { return }
            elements.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

extension MinHeap: Sendable where Element: Sendable {}
