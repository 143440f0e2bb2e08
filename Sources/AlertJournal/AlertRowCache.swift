import AlertCore

/// The buttons of the row read last, with their JSON: alerts in a row often share buttons (the same producer),
/// and comparing bytes costs far less than parsing them again.
struct AlertRowCache {
    private var json: [UInt8] = []
    private var decoded: [AlertButton] = []

    /// The buttons of `bytes`, parsed unless they equal the previous row's.
    mutating func buttons(_ bytes: UnsafeRawBufferPointer) throws(JournalDecodingError) -> [AlertButton] {
        if !json.isEmpty, json.elementsEqual(bytes) { return decoded }
        decoded = try AlertButton.journalButtons(bytes)
        json = Array(bytes)
        return decoded
    }
}
