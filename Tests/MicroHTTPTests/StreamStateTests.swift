@testable import MicroHTTP
import Testing

/// `StreamState`, a streamed body's buffer and phase, run without libmicrohttpd: writes, reads, and when the
/// connection is suspended and resumed.
@Suite("Stream state machine")
struct StreamStateTests {
    /// Reads up to `max` bytes, as libmicrohttpd's content reader does.
    static func read(_ state: inout StreamState, max: Int = 64) -> (StreamState.Read, [UInt8]) {
        var target = [UInt8](repeating: 0, count: max)
        let read = target.withUnsafeMutableBytes { state.read(into: $0) }
        guard case .bytes(let count) = read else { return (read, []) }
        return (read, Array(target[..<count]))
    }

    @Test("bytes go out in order; an empty buffer suspends, and the next write resumes")
    func idleAndResume() {
        var state = StreamState(limit: 16)
        #expect(state.write(Array("abc".utf8)) == .written(resume: false))
        #expect(Self.read(&state, max: 2).1 == Array("ab".utf8))
        #expect(Self.read(&state).1 == Array("c".utf8))
        #expect(Self.read(&state).0 == .suspend)
        #expect(state.phase == .idle)
        #expect(state.write(Array("d".utf8)) == .written(resume: true), "the first write after idling resumes")
        #expect(state.write(Array("e".utf8)) == .written(resume: false), "once")
        #expect(Self.read(&state).1 == Array("de".utf8))
    }

    @Test("a write past the limit is refused whole; a forced final piece is not")
    func limit() {
        var state = StreamState(limit: 4)
        #expect(state.write(Array("abc".utf8)) == .written(resume: false))
        #expect(state.write(Array("de".utf8)) == .full)
        #expect(state.pending == 3, "nothing of a refused write is buffered")
        #expect(state.write(Array("bye".utf8), force: true, finish: true) == .written(resume: false))
        #expect(state.pending == 6)
        #expect(state.isClosed, "finished: no more writes")
        #expect(state.write(Array("x".utf8)) == .closed)
        #expect(Self.read(&state).1 == Array("abcbye".utf8))
        #expect(Self.read(&state).0 == .end)
    }

    @Test("finishing an idle stream resumes it to send the end")
    func finishIdle() {
        var state = StreamState(limit: 8)
        #expect(Self.read(&state).0 == .suspend)
        #expect(state.write([], force: true, finish: true) == .written(resume: true))
        #expect(Self.read(&state).0 == .end)
    }

    @Test("a closed stream refuses writes and ends at once")
    func closed() {
        var state = StreamState(limit: 8)
        _ = state.write(Array("left".utf8))
        state.close()
        #expect(state.write(Array("x".utf8)) == .closed)
        #expect(state.write([], force: true, finish: true) == .closed)
        #expect(state.phase == .closed)
    }

    @Test("the buffer compacts as it is read, so a long stream keeps a bounded buffer")
    func compacts() {
        var state = StreamState(limit: 8)
        for round in 0..<1000 {
            let bytes = Array("\(round % 10)-\(round % 7)".utf8)
            #expect(state.write(bytes) == .written(resume: round > 0))
            #expect(Self.read(&state).1 == bytes)
            #expect(Self.read(&state).0 == .suspend)
        }
        #expect(state.pending == 0)
    }
}
