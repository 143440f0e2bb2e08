import AlertCodec
import AlertCore
import AlertModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The buttons and fields of the row read last, with their JSON: alerts in a row often share them (the same
/// producer), and comparing bytes costs far less than parsing them again.
struct AlertRowCache {
    private var buttons = Memo<[AlertButton]>()
    private var fields = Memo<[AlertField]>()

    /// The buttons of `bytes`, parsed unless they equal the previous row's.
    mutating func buttons(_ bytes: UnsafeRawBufferPointer) throws(JournalDecodingError) -> [AlertButton] {
        try buttons.value(bytes, AlertButton.stored)
    }

    /// The fields of `bytes`, parsed unless they equal the previous row's.
    mutating func fields(_ bytes: UnsafeRawBufferPointer) throws(JournalDecodingError) -> [AlertField] {
        try fields.value(bytes, AlertField.stored)
    }

    /// The value decoded from the last bytes seen, and those bytes.
    private struct Memo<Value> {
        private var json: [UInt8] = []
        private var decoded: Value?

        mutating func value(
            _ bytes: UnsafeRawBufferPointer,
            _ decode: (UnsafeRawBufferPointer) throws(JournalDecodingError) -> Value
        ) throws(JournalDecodingError) -> Value {
            if let decoded, json.count == bytes.count, bytes.isEmpty || same(bytes) { return decoded }
            let value = try decode(bytes)
            decoded = value
            json = Array(bytes)
            return value
        }

        private func same(_ bytes: UnsafeRawBufferPointer) -> Bool {
            json.withUnsafeBytes { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) } == 0
        }
    }
}
