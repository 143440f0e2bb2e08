import AlertCore
import AlertJournal
import Foundation
import Testing

/// The data dir is alertd's alone: one another user owns or can write in, journal files another user planted or
/// others can read, and symbolic links in place of the lock or the journal's files are refused, saying which and
/// why, and what they point to is left as it was. (Run as root too: `chown` to another uid works for root.)
@Suite(.timeLimit(.minutes(1)))
struct DataDirTrustTests {
    /// A data dir with a closed journal of one alert.
    private func journalOfOne(_ directory: TemporaryDirectory) async throws -> String {
        let data = directory.file("data")
        let (journal, _) = try await open(data)
        #expect(await journal.commit([.created(plainAlert(1), event: 1, idempotency: nil)]) == nil)
        journal.close()
        return data
    }

    @Test func aDataDirOthersCanWriteInIsRefused() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = try await journalOfOne(directory)
        for mode: mode_t in [0o777, 0o770, 0o1777] {
            #expect(chmod(data, mode) == 0)
            let error = await openError(data)
            #expect(error?.reason == .untrusted, "\(String(mode, radix: 8))")
            #expect(error?.description.contains("can be written by others") == true, "\(error!)")
        }
        #expect(chmod(data, 0o700) == 0)
        #expect(try await image(data).alerts == [plainAlert(1)])
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a folder to another user"))
    func aDataDirOrJournalFileOwnedByAnotherUserIsRefused() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = try await journalOfOne(directory)
        #expect(chown(data, 12345, 12345) == 0)
        let error = await openError(data)
        #expect(error?.reason == .untrusted)
        #expect(error?.description.contains("is owned by uid 12345") == true, "\(error!)")
        #expect(chown(data, 0, 0) == 0)
        for name in ["alertd.sqlite3", "alertd.mark", "alertd.lock"] {
            #expect(chown(data + "/" + name, 12345, 12345) == 0)
            let planted = await openError(data)
            #expect(planted?.reason == .untrusted, "\(name)")
            #expect(planted?.description.contains("\(name) is owned by uid 12345") == true, "\(planted!)")
            #expect(chown(data + "/" + name, 0, 0) == 0)
        }
        #expect(try await image(data).alerts == [plainAlert(1)])
    }

    @Test func journalFilesOthersCanWriteAreRefusedAndOnesTheyCanReadAreMadePrivate() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = try await journalOfOne(directory)
        // A log planted beside the journal, mode 0666: its reader would read secure values, its writer change them.
        #expect(FileManager.default.createFile(atPath: data + "/alertd.sqlite3-wal", contents: Data()))
        for name in ["alertd.sqlite3-wal", "alertd.sqlite3"] {
            #expect(chmod(data + "/" + name, 0o666) == 0)
            let error = await openError(data)
            #expect(error?.reason == .untrusted, "\(name)")
            #expect(error?.description.contains("\(name) can be written by others (mode 0666)") == true,
                    "\(error!)")
            #expect(try mode(data + "/" + name) == 0o666, "\(name) is left as it was")
            if name == "alertd.sqlite3-wal" { #expect(unlink(data + "/" + name) == 0) }
        }
        // Readable by others only (a copy put in place with the umask's mode): made private, then opened.
        #expect(chmod(data + "/alertd.sqlite3", 0o644) == 0)
        #expect(try await image(data).alerts == [plainAlert(1)])
        #expect(try mode(data + "/alertd.sqlite3") == 0o600)
    }

    @Test func symbolicLinksForTheLockOrTheJournalAreNotFollowed() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = try await journalOfOne(directory)
        let victim = directory.file("victim")
        let contents = Data("precious, not alertd's\n".utf8)
        for name in ["alertd.lock", "alertd.sqlite3", "alertd.sqlite3-wal", "alertd.mark"] {
            #expect(FileManager.default.createFile(atPath: victim, contents: contents))
            let file = data + "/" + name
            let aside = data + "/aside"
            if FileManager.default.fileExists(atPath: file) { #expect(rename(file, aside) == 0) }
            #expect(symlink(victim, file) == 0)
            let error = await openError(data)
            #expect(error?.reason == .untrusted, "\(name)")
            #expect(error?.description.contains("\(name) is a symbolic link") == true, "\(error!)")
            #expect(FileManager.default.contents(atPath: victim) == contents, "\(name): the link's target changed")
            #expect(unlink(file) == 0)
            if FileManager.default.fileExists(atPath: aside) { #expect(rename(aside, file) == 0) }
        }
        #expect(try await image(data).alerts == [plainAlert(1)])
    }

    @Test func aHardLinkInPlaceOfTheLockIsRefused() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = try await journalOfOne(directory)
        let victim = directory.file("victim")
        let contents = Data("another file\n".utf8)
        #expect(FileManager.default.createFile(atPath: victim, contents: contents,
                                               attributes: [.posixPermissions: 0o600]))
        #expect(unlink(data + "/alertd.lock") == 0)
        #expect(link(victim, data + "/alertd.lock") == 0)
        let error = await openError(data)
        #expect(error?.reason == .untrusted)
        #expect(error?.description.contains("has other names") == true, "\(error!)")
        #expect(FileManager.default.contents(atPath: victim) == contents)
    }

    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int) & 0o777
    }
}
