import Foundation

/// A new empty folder under the temporary directory, for one test's data dirs; `remove()` deletes it.
struct ScratchDirectory: Sendable {
    let path: String

    init() throws {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("alertd-durability-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// `path/name`.
    func appending(_ name: String) -> String { path + "/" + name }

    /// Deletes the folder and everything in it.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
