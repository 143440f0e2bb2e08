@testable import MicroHTTP
import Synchronization
import Testing

/// `Handoff`, the state a suspended request shares between libmicrohttpd's thread and whoever answers it, run
/// without libmicrohttpd: each transition and the action it asks for.
@Suite("Handoff state machine")
struct HandoffTests {
    /// A reply whose response body names it.
    static func reply(_ text: String) -> HTTPReply { .response(.text(200, text)) }

    static func text(_ reply: HTTPReply?) -> String? {
        guard case .response(let response)? = reply else { return nil }
        return String(decoding: response.body, as: UTF8.self)
    }

    @Test("suspend, resume once, take the reply: a second resume and a stale one do nothing")
    func resumeOnce() {
        var hand = Handoff()
        #expect(hand.suspend() == .suspend(generation: 1))
        #expect(hand.awaits(1) && hand.isSuspended)
        guard case .resume = hand.resume(1, with: Self.reply("first")) else { Issue.record("not resumed"); return }
        guard case .ignore = hand.resume(1, with: Self.reply("second")) else { Issue.record("resumed twice"); return }
        #expect(!hand.awaits(1) && !hand.isSuspended)
        #expect(Self.text(hand.takeReply()) == "first")
        #expect(hand.takeReply() == nil, "taken once")
        #expect(hand.suspend() == .suspend(generation: 2))
        guard case .ignore = hand.resume(1, with: Self.reply("late")) else { Issue.record("a stale reply resumed"); return }
        #expect(hand.awaits(2))
    }

    @Test("cancel handlers: chained while suspended, run once on a hang-up, then at once when added late")
    func cancelOnHangUp() {
        let runs = Mutex<[String]>([])
        var hand = Handoff()
        _ = hand.suspend()
        #expect(hand.addCancelHandler(1) { runs.withLock { $0.append("a") } } == .kept)
        #expect(hand.addCancelHandler(1) { runs.withLock { $0.append("b") } } == .kept)
        #expect(hand.addCancelHandler(0) {} == .drop, "an earlier suspension's handler is dropped")
        #expect(!hand.isCancelled(1))
        hand.cancel()?()
        #expect(runs.withLock { $0 } == ["a", "b"])
        #expect(hand.cancel() == nil, "once")
        #expect(hand.isCancelled(1) && hand.isSuspended, "still suspended until its reply comes")
        #expect(hand.addCancelHandler(1) {} == .runNow)
        guard case .resume(let dropped) = hand.resume(1, with: Self.reply("to a closed socket")) else {
            Issue.record("not resumed")
            return
        }
        #expect(dropped == nil, "the handlers ran already")
        #expect(hand.isCancelled(1), "a cancelled suspension stays cancelled once answered")
    }

    @Test("an answered suspension drops its handlers unrun, and later ones too")
    func answeredDropsHandlers() {
        var hand = Handoff()
        _ = hand.suspend()
        _ = hand.addCancelHandler(1) {}
        guard case .resume(let dropped) = hand.resume(1, with: Self.reply("done")) else {
            Issue.record("not resumed")
            return
        }
        #expect(dropped != nil, "handed back for release outside the mutex")
        #expect(hand.addCancelHandler(1) {} == .drop)
        #expect(hand.cancel() == nil, "a hang-up after the answer cancels nothing")
    }

    @Test("shutdown answers a suspended request, runs its handlers, and forbids suspending again")
    func forceAnswerSuspended() {
        var hand = Handoff()
        _ = hand.suspend()
        _ = hand.addCancelHandler(1) {}
        guard case .resume(let handlers) = hand.forceAnswer(with: Self.reply("503")) else {
            Issue.record("not resumed")
            return
        }
        #expect(handlers != nil)
        guard case .ignore = hand.resume(1, with: Self.reply("late")) else { Issue.record("resumed twice"); return }
        #expect(Self.text(hand.takeReply()) == "503")
        #expect(hand.isCancelled(1))
        #expect(hand.suspend() == .refuse)
        guard case .none = hand.forceAnswer(with: Self.reply("again")) else { Issue.record("forced twice"); return }
    }

    @Test("shutdown between a resume and its take keeps the reply, and refuses the next suspension")
    func forceAnswerResumed() {
        var hand = Handoff()
        _ = hand.suspend()
        _ = hand.resume(1, with: Self.reply("work"))
        guard case .none = hand.forceAnswer(with: Self.reply("503")) else { Issue.record("resumed again"); return }
        #expect(Self.text(hand.takeReply()) == "work")
        #expect(hand.suspend() == .refuse)
        #expect(!hand.isCancelled(1), "it was answered, not given up on")
    }

    @Test("shutdown of a request not suspended resumes nothing and refuses its first suspension")
    func forceAnswerRunning() {
        var hand = Handoff()
        guard case .none = hand.forceAnswer(with: Self.reply("503")) else { Issue.record("resumed"); return }
        #expect(hand.takeReply() == nil)
        #expect(hand.suspend() == .refuse)
    }

    @Test("a hung-up suspension answered at shutdown resumes without running its handlers again")
    func forceAnswerAbandoned() {
        var hand = Handoff()
        _ = hand.suspend()
        _ = hand.addCancelHandler(1) {}
        _ = hand.cancel()
        guard case .resume(let handlers) = hand.forceAnswer(with: Self.reply("503")) else {
            Issue.record("not resumed")
            return
        }
        #expect(handlers == nil)
        #expect(Self.text(hand.takeReply()) == "503")
    }
}
