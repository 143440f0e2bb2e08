/// The keyboard a text field asks for: UIKit's `UIKeyboardType`, by its Swift case name (the name alertd sends back
/// in `RemoteField.keyboard`). The dashboard holds typing in such a field to what the keyboard could type.
public enum Keyboard: String, Codable, Sendable, CaseIterable {
    // The case names are UIKit's, so `URL` keeps its capitals.
    /// Any text.
    case `default`
    /// ASCII letters, digits and punctuation (`UIKeyboardTypeAlphabet` in the seeds).
    case asciiCapable
    /// Digits and punctuation.
    case numbersAndPunctuation
    /// A URL.
    case URL
    /// Digits 0–9 only.
    case numberPad
    /// A phone number: digits, `+ * #`, spaces, `( ) - .` and `,` `;` for pauses.
    case phonePad
    /// A person's name or a phone number.
    case namePhonePad
    /// An email address.
    case emailAddress
    /// A decimal number: digits and one decimal separator.
    case decimalPad
    /// Text with `@` and `#` at hand.
    case twitter
    /// A search term.
    case webSearch
    /// Digits 0–9 only (ASCII).
    case asciiCapableNumberPad

    /// `UIKeyboardType`'s raw value (0 for `default` … 11 for `asciiCapableNumberPad`).
    public var rawUIKitValue: Int { Self.allCases.firstIndex(of: self) ?? 0 }
}
