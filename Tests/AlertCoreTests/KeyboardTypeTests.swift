@testable import AlertCore
import Testing

@Suite("KeyboardType")
struct KeyboardTypeTests {
    @Test("raw values are UIKeyboardType's, 0 to 11")
    func rawValues() {
        #expect(KeyboardType.allCases.map(\.rawValue) == Array(0...11))
        #expect(KeyboardType(rawValue: 7) == .emailAddress)
        #expect(KeyboardType(rawValue: 12) == nil)
    }

    @Test("names are the UIKit Swift case names and round-trip")
    func names() {
        #expect(KeyboardType.allCases.map(\.name) == [
            "default", "asciiCapable", "numbersAndPunctuation", "URL", "numberPad", "phonePad", "namePhonePad",
            "emailAddress", "decimalPad", "twitter", "webSearch", "asciiCapableNumberPad",
        ])
        for keyboard in KeyboardType.allCases {
            #expect(KeyboardType(name: keyboard.name) == keyboard)
            #expect(KeyboardType(name: keyboard.objectiveCName) == keyboard)
        }
    }

    @Test("aliases and Objective-C names", arguments: [
        ("alphabet", KeyboardType.asciiCapable), ("UIKeyboardTypeAlphabet", .asciiCapable),
        ("UIKeyboardTypeASCIICapable", .asciiCapable), ("UIKeyboardTypeEmailAddress", .emailAddress),
        ("UIKeyboardTypeURL", .URL), ("url", .URL), ("UIKeyboardTypeDefault", .default),
        ("UIKeyboardTypeASCIICapableNumberPad", .asciiCapableNumberPad),
    ])
    func aliases(name: String, keyboard: KeyboardType) {
        #expect(KeyboardType(name: name) == keyboard)
    }

    @Test("unknown names are rejected", arguments: ["", "qwerty", "UIKeyboardType", "7"])
    func unknown(name: String) {
        #expect(KeyboardType(name: name) == nil)
    }
}
