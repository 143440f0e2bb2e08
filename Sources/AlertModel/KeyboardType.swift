/// The keyboard a device shows for a text field; raw values are `UIKeyboardType`'s.
public enum KeyboardType: Int, Sendable, CaseIterable {
    // The case names are UIKit's, so `URL` keeps its capitals.
    /// `UIKeyboardType.default` (0).
    case `default` = 0
    /// `UIKeyboardType.asciiCapable` (1), formerly `alphabet`.
    case asciiCapable
    /// `UIKeyboardType.numbersAndPunctuation` (2).
    case numbersAndPunctuation
    /// `UIKeyboardType.URL` (3).
    case URL
    /// `UIKeyboardType.numberPad` (4).
    case numberPad
    /// `UIKeyboardType.phonePad` (5).
    case phonePad
    /// `UIKeyboardType.namePhonePad` (6).
    case namePhonePad
    /// `UIKeyboardType.emailAddress` (7).
    case emailAddress
    /// `UIKeyboardType.decimalPad` (8).
    case decimalPad
    /// `UIKeyboardType.twitter` (9).
    case twitter
    /// `UIKeyboardType.webSearch` (10).
    case webSearch
    /// `UIKeyboardType.asciiCapableNumberPad` (11).
    case asciiCapableNumberPad

    /// The UIKit Swift case name: `default`, `asciiCapable`, … `URL`, … `asciiCapableNumberPad`.
    public var name: String {
        switch self {
        case .default: "default"
        case .asciiCapable: "asciiCapable"
        case .numbersAndPunctuation: "numbersAndPunctuation"
        case .URL: "URL"
        case .numberPad: "numberPad"
        case .phonePad: "phonePad"
        case .namePhonePad: "namePhonePad"
        case .emailAddress: "emailAddress"
        case .decimalPad: "decimalPad"
        case .twitter: "twitter"
        case .webSearch: "webSearch"
        case .asciiCapableNumberPad: "asciiCapableNumberPad"
        }
    }

    /// The Objective-C constant name, such as `UIKeyboardTypeEmailAddress` or `UIKeyboardTypeASCIICapable`.
    public var objectiveCName: String {
        switch self {
        case .asciiCapable: "UIKeyboardTypeASCIICapable"
        case .asciiCapableNumberPad: "UIKeyboardTypeASCIICapableNumberPad"
        case .URL: "UIKeyboardTypeURL"
        default: "UIKeyboardType" + name.prefix(1).uppercased() + name.dropFirst()
        }
    }

    /// Finds a keyboard by name, ignoring case.
    ///
    /// Accepts the Swift case name (`emailAddress`), the Objective-C name (`UIKeyboardTypeEmailAddress`),
    /// and the deprecated alias `alphabet` / `UIKeyboardTypeAlphabet` for `asciiCapable`.
    ///
    /// - Parameters:
    ///   - name: The name to look up.
    public init?(name: String) {
        let key = name.lowercased()
        guard let found = Self.byLowercasedName[key] else { return nil }
        self = found
    }

    /// Every accepted name, lowercased, with its keyboard.
    private static let byLowercasedName: [String: KeyboardType] = {
        var table: [String: KeyboardType] = [:]
        for keyboard in allCases {
            table[keyboard.name.lowercased()] = keyboard
            table[keyboard.objectiveCName.lowercased()] = keyboard
        }
        table["alphabet"] = .asciiCapable
        table["uikeyboardtypealphabet"] = .asciiCapable
        return table
    }()
}
