import AlertCodec
import AlertCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The buttons of the row read last, with their JSON: alerts in a row often share buttons (the same producer),
/// and comparing bytes costs far less than parsing them again.
struct AlertRowCache {
    private var json: [UInt8] = []
    private var decoded: [AlertButton] = []

    /// The buttons of `bytes`, parsed unless they equal the previous row's.
    mutating func buttons(_ bytes: UnsafeRawBufferPointer) throws(JournalDecodingError) -> [AlertButton] {
        if !json.isEmpty, json.count == bytes.count, let row = bytes.baseAddress,
           json.withUnsafeBytes({ memcmp($0.baseAddress!, row, bytes.count) }) == 0 {
            return decoded
        }
        decoded = try AlertButton.stored(bytes)
        json = Array(bytes)
        return decoded
    }
}
