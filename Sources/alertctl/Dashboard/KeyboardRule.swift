import AlertClient

/// What a text field takes, by its keyboard type: the keys a device's keyboard of that type could type. The
/// dashboard refuses other keys (saying why) and shows the hint while the field has the focus.
struct KeyboardRule: Sendable, Equatable {
    /// What the field takes, for the hints line: "digits 0-9".
    let hint: String
    private let accepts: @Sendable (Character, String) -> Bool

    static func == (lhs: KeyboardRule, rhs: KeyboardRule) -> Bool { lhs.hint == rhs.hint }

    /// Whether `character` may be typed after `text`.
    func accepts(_ character: Character, after text: String) -> Bool {
        accepts(character, text)
    }

    /// The rule for a keyboard name as alertd sends it; an unknown name takes any text.
    static func of(_ keyboard: String) -> KeyboardRule {
        switch Keyboard(rawValue: keyboard) ?? .default {
        case .default: any
        case .asciiCapable: KeyboardRule(hint: "ASCII text") { character, _ in character.isASCII }
        case .numbersAndPunctuation:
            KeyboardRule(hint: "digits and punctuation") { character, _ in
                character.isASCII && (isDigit(character) || character.isPunctuation || character.isSymbol
                    || character == " ")
            }
        case .URL: KeyboardRule(hint: "a URL (no spaces)") { character, _ in !character.isWhitespace }
        case .numberPad, .asciiCapableNumberPad: KeyboardRule(hint: "digits 0-9") { character, _ in isDigit(character) }
        case .phonePad:
            KeyboardRule(hint: "a phone number: 0-9 + * # ( ) - . , ; space") { character, _ in isPhone(character) }
        case .namePhonePad:
            KeyboardRule(hint: "a name or a phone number") { character, _ in
                character.isLetter || character == "'" || isPhone(character)
            }
        case .emailAddress: KeyboardRule(hint: "an email address (no spaces)") { character, _ in !character.isWhitespace }
        case .decimalPad:
            KeyboardRule(hint: "a decimal number: 0-9 and one . or ,") { character, text in
                if isDigit(character) { return true }
                return (character == "." || character == ",") && !text.contains { $0 == "." || $0 == "," }
            }
        case .twitter: KeyboardRule(hint: "text; @ and # at hand") { _, _ in true }
        case .webSearch: KeyboardRule(hint: "a search term") { _, _ in true }
        }
    }

    private static let any = KeyboardRule(hint: "any text") { _, _ in true }

    private static func isDigit(_ character: Character) -> Bool {
        character.isASCII && character.isNumber
    }

    private static func isPhone(_ character: Character) -> Bool {
        isDigit(character) || "+*#()-.,; ".contains(character)
    }

    private init(hint: String, accepts: @escaping @Sendable (Character, String) -> Bool) {
        self.hint = hint
        self.accepts = accepts
    }
}
