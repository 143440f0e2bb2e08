@testable import AlertCore
import Testing

@Suite("Concurrent resolution")
struct ConcurrencyTests {
    @Test("24 concurrent answers and dismissals: exactly one wins, the rest see alreadyResolved with its result")
    func exactlyOneWins() async throws {
        let store = AlertStore()
        let alert = try await store.create(AlertDraft(title: "Race", buttons: plain("Cancel", "A", "B"),
                                                      fields: [FieldSpec(text: "t")]))
        let waiter = Task { try await store.waitForResolution(of: alert.id, timeout: .seconds(60)) }
        let outcomes = await withTaskGroup(of: Result<AlertResult, AlertStoreError>.self) { group in
            for task in 0..<24 {
                group.addTask {
                    do throws(AlertStoreError) {
                        if task % 6 == 0 {
                            return .success(try await store.dismiss(alert.id))
                        }
                        let choice = AnswerDraft(choice: .index(task % 3), values: ["v\(task)"])
                        return .success(try await store.answer(alert.id, with: choice))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            var all: [Result<AlertResult, AlertStoreError>] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        let winners = outcomes.compactMap { try? $0.get() }
        #expect(winners.count == 1)
        let winner = try #require(winners.first)
        let losers = outcomes.compactMap(\.failure)
        #expect(losers.count == 23)
        #expect(losers.allSatisfy { $0.kind == .alreadyResolved && $0.result == winner })
        #expect(try await waiter.value.result == winner)
        #expect(try await store.alert(alert.id).result == winner)
        #expect(await store.index == 2)
    }
}
