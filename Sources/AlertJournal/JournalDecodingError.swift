/// A row the journal cannot turn back into a value: the file was damaged or written by something else.
struct JournalDecodingError: Error, Sendable, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
