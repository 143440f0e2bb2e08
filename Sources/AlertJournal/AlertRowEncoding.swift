import AlertCodec
import AlertCore
import AlertModel

/// The JSON of the buttons and fields of the row written last, with the values: alerts in a row often share them (the
/// same producer), and comparing the values costs far less than encoding them again. The writer's counterpart of
/// `AlertRowCache`.
struct AlertRowEncoding {
    private var buttons = Memo<[AlertButton]>()
    private var fields = Memo<[AlertField]>()

    /// The stored JSON of `value`, encoded unless it equals the previous row's buttons.
    mutating func buttons(_ value: [AlertButton]) -> [UInt8] {
        buttons.json(value, AlertButton.storedJSON)
    }

    /// The stored JSON of `value`, encoded unless it equals the previous row's fields.
    mutating func fields(_ value: [AlertField]) -> [UInt8] {
        fields.json(value, AlertField.storedJSON)
    }

    private struct Memo<Value: Equatable> {
        private var last: (value: Value, json: [UInt8])?

        mutating func json(_ value: Value, _ encode: (Value) -> [UInt8]) -> [UInt8] {
            if let last, last.value == value { return last.json }
            let json = encode(value)
            last = (value, json)
            return json
        }
    }
}
