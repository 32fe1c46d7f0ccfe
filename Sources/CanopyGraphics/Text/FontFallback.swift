import CFontconfig
import Foundation
import Synchronization

/// The system's font for a character the app's fonts lack, found by fontconfig: the face it
/// ranks first for the character, the weight and the slant asked for, among those that have the
/// character (CJK, Arabic, Hebrew, Devanagari, emoji... whatever the machine has installed).
///
/// Answers are remembered per character, weight and slant for the life of the process (the
/// installed fonts are not watched). A machine without a font for a character gets nil, and the
/// text shows the app font's missing-glyph box there. Any thread: the queries run under one lock
/// (fontconfig's configuration is shared).
public enum FontFallback {
    /// A font file and the face in it (a collection, .ttc, holds several).
    struct Face: Hashable, Sendable {
        var path: String
        var index: Int
        /// fontconfig's family name of the face ("Noto Sans CJK JP").
        var family: String
    }

    private struct Key: Hashable {
        var scalar: UInt32
        var weight: FontWeight
        var italic: Bool
    }

    private struct State {
        var config: OpaquePointer?
        var started = false
        var answers: [Key: Face?] = [:]
    }
    private static let state = Mutex(State())

    /// Whether fallback is on (it is unless turned off: the tests turn it off to see the boxes
    /// a machine without the fonts would show).
    public static var isEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }
    private static let enabled = Atomic<Bool>(true)

    /// The face fontconfig picks for `scalar` in `weight` and slant, or nil when no installed
    /// font has it (or fontconfig cannot start).
    static func face(for scalar: UInt32, weight: FontWeight, italic: Bool) -> Face? {
        guard isEnabled else { return nil }
        let key = Key(scalar: scalar, weight: weight, italic: italic)
        return state.withLock { state -> Face? in
            if let known = state.answers[key] { return known }
            if !state.started {
                state.started = true
                state.config = FcInitLoadConfigAndFonts()
            }
            let face = state.config.flatMap { query($0, key) }
            state.answers[key] = .some(face)
            return face
        }
    }

    /// One fontconfig match: a pattern with the character, the weight, the slant (and for emoji,
    /// colour), substituted with the configuration's rules, matched, and accepted only if the
    /// face really has the character (fontconfig returns its best face even when none has it).
    private static func query(_ config: OpaquePointer, _ key: Key) -> Face? {
        guard let pattern = FcPatternCreate() else { return nil }
        defer { FcPatternDestroy(pattern) }
        guard let charset = FcCharSetCreate() else { return nil }
        defer { FcCharSetDestroy(charset) }
        FcCharSetAddChar(charset, key.scalar)
        FcPatternAddCharSet(pattern, FC_CHARSET, charset)
        FcPatternAddInteger(pattern, FC_WEIGHT, fontconfigWeight(key.weight))
        FcPatternAddInteger(pattern, FC_SLANT, key.italic ? FC_SLANT_ITALIC : FC_SLANT_ROMAN)
        if isEmoji(key.scalar) { FcPatternAddBool(pattern, FC_COLOR, FcTrue) }
        FcConfigSubstitute(config, pattern, FcMatchPattern)
        FcDefaultSubstitute(pattern)
        var result = FcResultNoMatch
        guard let match = FcFontMatch(config, pattern, &result) else { return nil }
        defer { FcPatternDestroy(match) }
        var found: OpaquePointer?
        guard FcPatternGetCharSet(match, FC_CHARSET, 0, &found) == FcResultMatch, let found,
            FcCharSetHasChar(found, key.scalar) != 0
        else { return nil }
        var file: UnsafeMutablePointer<FcChar8>?
        guard FcPatternGetString(match, FC_FILE, 0, &file) == FcResultMatch, let file else { return nil }
        var index: Int32 = 0
        _ = FcPatternGetInteger(match, FC_INDEX, 0, &index)
        var family: UnsafeMutablePointer<FcChar8>?
        let name =
            FcPatternGetString(match, FC_FAMILY, 0, &family) == FcResultMatch && family != nil
            ? String(cString: UnsafeRawPointer(family!).assumingMemoryBound(to: CChar.self)) : "fallback"
        return Face(
            path: String(cString: UnsafeRawPointer(file).assumingMemoryBound(to: CChar.self)), index: Int(index),
            family: name)
    }

    /// fontconfig's weight scale for a CSS weight.
    private static func fontconfigWeight(_ weight: FontWeight) -> Int32 {
        Int32(FcWeightFromOpenType(Int32(weight.rawValue)))
    }

    /// Code points shown as emoji by default: pictographs, emoticons, transport, symbols.
    static func isEmoji(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x1F300...0x1FAFF, 0x2600...0x27BF, 0x1F000...0x1F2FF: return true
        default: return false
        }
    }
}
