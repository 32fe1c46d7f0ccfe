// One file (about 800 lines) on purpose: measuring, breaking, truncating and placing are the
// passes of one builder over the same private state.
import CFriBidi
import Foundation

/// The attributes of a run with every default filled in.
struct TextStyleKey: Hashable {
    var font: Font
    var color: Color
    var kern: CGFloat
    var shadow: TextShadow?
    var paragraphStyle: ParagraphStyle
}

/// A style in use, with its font opened at the layout's scale.
struct TextStyle {
    var key: TextStyleKey
    var handle: FontHandle
    /// The kern in whole pixels: added after each character but a line's last.
    var kernPixels: Int
}

/// Breaks one attributed string into lines. Used by `TextLayout.init` on the calling thread
/// only (a class so its memo tables can be filled from the measuring closures).
final class TextLayoutBuilder {
    struct Output {
        var lines: [TextLayout.Line]
        var size: CGSize
        var isTruncated: Bool
        var missingGlyphs: [Unicode.Scalar] = []
    }

    private struct Flags: OptionSet {
        let rawValue: UInt8
        static let space = Flags(rawValue: 1)  // a breakable space (not a no-break one)
        static let newline = Flags(rawValue: 2)
        static let hyphen = Flags(rawValue: 4)  // a line may break after it
        static let rightToLeft = Flags(rawValue: 8)  // strongly right-to-left
        static let leftToRight = Flags(rawValue: 16)  // strongly left-to-right
        static let directionControl = Flags(rawValue: 32)  // an explicit mark, embedding or isolate
    }

    /// A piece of line content: one style, one embedding level, or a run of spaces between words.
    /// Its characters may come from more than one place (a truncated line's kept text and the
    /// truncation string after it are shaped together when their styles agree).
    private struct Draft {
        var parts: [Range<Int>]
        var style: Int
        var script: ShapingScript?  // nil: left to right
        var isGap: Bool  // spaces of a justified line: measured, stretched, not drawn
        var width: Int
        /// The bidirectional embedding level (odd: right to left), which orders drafts in a line.
        var level: Int8
    }

    private struct LineDraft {
        var start: Int
        var end: Int
        var content: [Range<Int>]
        var paragraphStart: Int
        var isLastOfParagraph: Bool
        var isTruncated = false
    }

    private struct MemoKey: Hashable { var parts: [Range<Int>]; var style: Int; var rtl: Bool }
    private struct FallbackKey: Hashable { var style: Int; var scalar: UInt32 }
    private var fallbackMemo: [FallbackKey: Int] = [:]
    /// Characters no font in use or installed has: they show as the missing-glyph box.
    private var missing: [Unicode.Scalar] = []

    private let string: AttributedString
    private let scale: CGFloat
    private let maximumNumberOfLines: Int
    private let truncationString: AttributedString
    private let fonts: FontRegistry
    /// The width lines break in, in pixels (a huge number when unlimited).
    private let available: Int
    private let unlimited: Bool

    private var styles: [TextStyle] = []
    private var styleIndex: [TextStyleKey: Int] = [:]
    // One entry per character (grapheme cluster); the truncation string's characters follow the
    // main string's `mainCount`.
    private var bytes: [UInt8] = []
    private var charStart: [Int] = [0]
    private var charStyle: [Int] = []
    private var charFlags: [Flags] = []
    private var charScript: [ShapingScript?] = []
    /// Each character's bidirectional embedding level (UAX #9 through FriBiDi; even: left to
    /// right), and whether its paragraph runs right to left.
    private var charLevel: [Int8] = []
    private var charParagraphRTL: [Bool] = []
    /// Estimated advances (pixels, kern included) summed: cumulative[i] is the sum before char i.
    private var cumulative: [Int] = [0]
    private var mainCount = 0
    private var widthMemo: [MemoKey: Int] = [:]
    private var clusterWidths: [Int] = []
    private var scratch: [CChar] = []
    /// How far (pixels per character) an estimate may overshoot the shaped width: a generous
    /// bound on what kerning pairs and ligatures take back, from the largest font in use.
    private var estimateTolerance = 2

    init(
        string: AttributedString, width: CGFloat, scale: CGFloat, maximumNumberOfLines: Int,
        truncationString: AttributedString, fonts: FontRegistry
    ) throws(FontError) {
        self.string = string
        self.scale = scale
        self.maximumNumberOfLines = maximumNumberOfLines
        self.truncationString = truncationString
        self.fonts = fonts
        let pixels = width * self.scale
        if pixels.isNaN || pixels >= CGFloat(Int32.max) {
            available = Int(Int32.max)
            unlimited = true
        } else {
            available = max(0, Int((pixels + 1e-6).rounded(.down)))
            unlimited = false
        }
        try append(string, inheriting: nil)
        mainCount = charStyle.count
    }

    // MARK: - Text and styles

    private func style(for key: TextStyleKey) throws(FontError) -> Int {
        if let index = styleIndex[key] { return index }
        let handle = try fonts.handle(for: key.font, scale: scale)
        let index = styles.count
        styles.append(TextStyle(key: key, handle: handle, kernPixels: Int((key.kern * scale).rounded())))
        estimateTolerance = max(estimateTolerance, Int(key.font.size * scale) / 8 + 1)
        styleIndex[key] = index
        return index
    }

    /// Appends the characters of `text`, resolving their styles (missing attributes from
    /// `inherited`, else the defaults), flags, estimated advances and embedding levels (each
    /// paragraph's direction from its first strong character, or `rightToLeft` when given).
    private func append(
        _ text: AttributedString, inheriting inherited: TextStyleKey?, rightToLeft: Bool? = nil
    ) throws(FontError) {
        var runEnds: [(end: Int, style: Int)] = []
        for run in text.runs {
            let key = TextStyleKey(
                font: run.font ?? inherited?.font ?? TextLayout.defaultFont,
                color: run.foregroundColor ?? inherited?.color ?? TextLayout.defaultForegroundColor,
                kern: run.kern.map { $0.isFinite ? min(1000, max(-1000, $0)) : 0 } ?? 0,
                shadow: run.shadow ?? inherited?.shadow,
                paragraphStyle: run.paragraphStyle ?? inherited?.paragraphStyle ?? .default)
            let end = text.utf8.distance(from: text.startIndex, to: run.range.upperBound)
            runEnds.append((end, try style(for: key)))
        }
        // (Slicing first takes CharacterView's fast path to a String.)
        let plain = String(text.characters[...])
        var byteOffset = 0
        var run = 0
        let firstNew = charStyle.count
        var lastFallback: (base: Int, style: Int)?
        for character in plain {
            while run + 1 < runEnds.count && byteOffset >= runEnds[run].end { run += 1 }
            let utf8 = character.utf8
            let first = utf8.first!
            var flags: Flags = []
            var script: ShapingScript?
            if utf8.count == 1 {
                // ASCII: flags from the byte; control characters (tabs) are shaped as spaces.
                switch first {
                case 0x0A, 0x0B, 0x0C, 0x0D: flags = .newline
                case 0x20, 0x09: flags = .space
                case 0x2D: flags = .hyphen
                case 0x41...0x5A, 0x61...0x7A: flags = .leftToRight
                default: break
                }
                bytes.append(first < 0x20 || first == 0x7F ? 0x20 : first)
            } else {
                let scalar = character.unicodeScalars.first!
                if character.isNewline {
                    flags.insert(.newline)
                } else if character.isWhitespace && scalar.value != 0xA0 && scalar.value != 0x2007 && scalar.value != 0x202F {
                    flags.insert(.space)
                } else if scalar.value == 0x2010 || scalar.value == 0x2013 {
                    flags.insert(.hyphen)
                }
                if let rtl = TextLayoutBuilder.rightToLeftScript(scalar.value) {
                    flags.insert(.rightToLeft)
                    script = rtl
                } else if scalar.properties.isAlphabetic {
                    flags.insert(.leftToRight)
                } else if TextLayoutBuilder.isDirectionControl(scalar.value) {
                    flags.insert(.directionControl)
                }
                for byte in utf8 { bytes.append(byte < 0x20 || byte == 0x7F ? 0x20 : byte) }
            }
            byteOffset += utf8.count
            charStart.append(bytes.count)
            let base = runEnds.isEmpty ? 0 : runEnds[run].style
            var styleIndex = base
            let scalar = character.unicodeScalars.first!.value
            // Direction controls are invisible (HarfBuzz hides them): no font need have them.
            let invisible = flags.contains(.directionControl)
            if utf8.count > 1, !flags.contains(.newline), !flags.contains(.space), !invisible {
                styleIndex = try fallbackStyle(base, for: scalar)
            }
            if invisible {
                // Neither a fallback run's end nor its start: it joins the run it is in.
                if let last = lastFallback, last.base == base { styleIndex = last.style }
            } else if styleIndex != base {
                lastFallback = (base, styleIndex)
            } else if flags.contains(.leftToRight) || flags.contains(.rightToLeft) || flags.contains(.newline) {
                lastFallback = nil  // a letter of the text's own font: back to it
            } else if let last = lastFallback, last.base == base, styles[last.style].handle.bitmapScale == 1,
                styles[last.style].handle.provides(scalar)
            {
                // Spaces, digits and punctuation between characters of a fallback font stay in
                // it, so that a Hebrew or CJK phrase is one run, shaped and placed as one (not
                // after an emoji: a bitmap font's space is as wide as its emoji).
                styleIndex = last.style
            }
            charStyle.append(styleIndex)
            charFlags.append(flags)
            charScript.append(script)
            clusterWidths.append(-1)
        }
        // Estimated advances, one font lock per run of a style.
        var i = firstNew
        let count = charStyle.count
        while i < count {
            let styleIndex = charStyle[i]
            let style = styles[styleIndex]
            var j = i
            style.handle.withAdvances { advance in
                while j < count && charStyle[j] == styleIndex {
                    let scalar = UInt32(TextLayoutBuilder.firstScalar(bytes, charStart[j]))
                    cumulative.append(cumulative[j] + advance(scalar) + style.kernPixels)
                    j += 1
                }
            }
            i = j
        }
        resolveLevels(from: firstNew, rightToLeft: rightToLeft)
    }

    /// The embedding levels of the characters from `first` on, paragraph by paragraph (a
    /// newline ends one and takes its level), through FriBiDi; a right-to-left run's characters
    /// without a script of their own (digits, punctuation) are shaped in the script around them.
    /// Left-to-right text without a right-to-left character or a direction control skips FriBiDi:
    /// every level is 0.
    private func resolveLevels(from first: Int, rightToLeft: Bool?) {
        let count = charStyle.count
        var start = first
        while start < count {
            var end = start
            var needsAlgorithm = rightToLeft == true
            while end < count && !charFlags[end].contains(.newline) {
                if !charFlags[end].isDisjoint(with: [.rightToLeft, .directionControl]) { needsAlgorithm = true }
                end += 1
            }
            let paragraphEnd = min(count, end + 1)  // the newline belongs to its paragraph
            guard needsAlgorithm else {
                charLevel.append(contentsOf: repeatElement(0, count: paragraphEnd - start))
                charParagraphRTL.append(contentsOf: repeatElement(false, count: paragraphEnd - start))
                start = paragraphEnd
                continue
            }
            // The code points of the paragraph (its newline aside), and where each character's first is.
            var scalars: [UInt32] = []
            var firstScalar: [Int] = []
            for c in start..<end {
                firstScalar.append(scalars.count)
                for scalar in String(decoding: bytes[charStart[c]..<charStart[c + 1]], as: UTF8.self).unicodeScalars {
                    scalars.append(scalar.value)
                }
            }
            var levels = [Int8](repeating: 0, count: scalars.count)
            let base: Int32 = rightToLeft.map { $0 ? 2 : 1 } ?? 0
            let isRTL = canopy_bidi_levels(scalars, Int32(scalars.count), base, &levels) == 1 || rightToLeft == true
            var lastScript = charScript[start..<end].lazy.compactMap { $0 }.first ?? .arabic
            for c in start..<end {
                let level = levels.isEmpty ? 0 : levels[firstScalar[c - start]]
                charLevel.append(level)
                charParagraphRTL.append(isRTL)
                if let own = charScript[c] { lastScript = own }
                if level & 1 == 1 && charScript[c] == nil { charScript[c] = lastScript }
            }
            if end < count {  // the newline: the paragraph's own level
                charLevel.append(isRTL ? 1 : 0)
                charParagraphRTL.append(isRTL)
            }
            start = paragraphEnd
        }
    }

    /// Left-to-right and right-to-left marks, embeddings, overrides and isolates (and the Arabic
    /// letter mark), which only the bidirectional algorithm reads.
    private static func isDirectionControl(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// The style to draw `scalar` in where `index`'s font lacks it: the same style in the system
    /// font fontconfig finds for it (`FontRegistry.fallbackFont`), or `index` itself when its
    /// font has the character or no installed font does (the missing-glyph box then shows).
    private func fallbackStyle(_ index: Int, for scalar: UInt32) throws(FontError) -> Int {
        let key = FallbackKey(style: index, scalar: scalar)
        if let known = fallbackMemo[key] { return known }
        var result = index
        let style = styles[index]
        if !style.handle.provides(scalar) {
            if let font = fonts.fallbackFont(for: scalar, like: style.key.font) {
                var fallback = style.key
                fallback.font = font
                result = try self.style(for: fallback)
            } else if let missingScalar = Unicode.Scalar(scalar), !missing.contains(missingScalar) {
                missing.append(missingScalar)
            }
        }
        fallbackMemo[key] = result
        return result
    }

    /// The first code point of the UTF-8 sequence at `offset`.
    private static func firstScalar(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        let b0 = UInt32(bytes[offset])
        if b0 < 0x80 { return b0 }
        if b0 < 0xE0 { return (b0 & 0x1F) << 6 | UInt32(bytes[offset + 1] & 0x3F) }
        if b0 < 0xF0 {
            return (b0 & 0x0F) << 12 | UInt32(bytes[offset + 1] & 0x3F) << 6 | UInt32(bytes[offset + 2] & 0x3F)
        }
        return (b0 & 0x07) << 18 | UInt32(bytes[offset + 1] & 0x3F) << 12
            | UInt32(bytes[offset + 2] & 0x3F) << 6 | UInt32(bytes[offset + 3] & 0x3F)
    }

    /// The script a strongly right-to-left code point is shaped as, nil for others.
    private static func rightToLeftScript(_ scalar: UInt32) -> ShapingScript? {
        switch scalar {
        case 0x0590...0x05FF, 0xFB1D...0xFB4F: return .hebrew
        case 0x0600...0x08FF, 0xFB50...0xFDFF, 0xFE70...0xFEFF, 0x10800...0x10FFF, 0x1E800...0x1EFFF: return .arabic
        default: return nil
        }
    }

    private func isSpace(_ i: Int) -> Bool { charFlags[i].contains(.space) }
    private func estimate(_ start: Int, _ end: Int) -> Int { end > start ? cumulative[end] - cumulative[start] : 0 }

    /// `end` moved back over spaces, not before `start`.
    private func trimmedEnd(_ start: Int, _ end: Int) -> Int {
        var e = end
        while e > start && isSpace(e - 1) { e -= 1 }
        return e
    }

    // MARK: - Measuring

    /// Splits content into drafts (segments): a new one at every change of style or of embedding
    /// level, and, when `splittingSpaces`, around every run of spaces. Widths are measured.
    private func drafts(_ content: [Range<Int>], splittingSpaces: Bool = false) -> [Draft] {
        var result: [Draft] = []
        var current: Draft? = nil
        for range in content {
            for i in range {
                let gap = splittingSpaces && charFlags[i].contains(.space)
                let level = charLevel[i]
                if var draft = current, draft.style == charStyle[i], draft.isGap == gap, gap || draft.level == level {
                    if draft.parts[draft.parts.count - 1].upperBound == i {
                        draft.parts[draft.parts.count - 1] = draft.parts[draft.parts.count - 1].lowerBound..<(i + 1)
                    } else {
                        draft.parts.append(i..<(i + 1))
                    }
                    current = draft
                    continue
                }
                if let draft = current { result.append(draft) }
                current = Draft(
                    parts: [i..<(i + 1)], style: charStyle[i], script: level & 1 == 1 ? charScript[i] ?? .arabic : nil,
                    isGap: gap, width: 0, level: level)
            }
        }
        if let draft = current { result.append(draft) }
        for i in result.indices {
            result[i].width = width(result[i].parts, style: result[i].style, script: result[i].script)
        }
        return result
    }

    /// The order drafts of one line are drawn in, left to right: UAX #9's L2, every maximal run
    /// at a level or higher reversed, from the highest level down to the lowest odd one.
    private static func visualOrder(_ drafts: [Draft]) -> [Int] {
        var order = Array(drafts.indices)
        guard let highest = drafts.map(\.level).max(), highest > 0 else { return order }
        let lowestOdd = drafts.map(\.level).filter { $0 & 1 == 1 }.min() ?? 1
        var level = highest
        while level >= lowestOdd {
            var k = 0
            while k < order.count {
                guard drafts[order[k]].level >= level else {
                    k += 1
                    continue
                }
                var end = k
                while end < order.count && drafts[order[end]].level >= level { end += 1 }
                order[k..<end].reverse()
                k = end
            }
            level -= 1
        }
        return order
    }

    /// The width in pixels of the bitmap(s) drawing the characters of `parts` in a style: the
    /// shaped text's, or for a kerned style the clusters' one by one plus the kern between them.
    private func width(_ parts: [Range<Int>], style: Int, script: ShapingScript?) -> Int {
        let key = MemoKey(parts: parts, style: style, rtl: script != nil)
        if let known = widthMemo[key] { return known }
        let handle = styles[style].handle
        let direction: ShapingDirection = script.map { .rightToLeft($0) } ?? .leftToRight
        var total: Int
        let kern = styles[style].kernPixels
        if kern == 0 {
            scratch.removeAll(keepingCapacity: true)
            for part in parts {
                for b in charStart[part.lowerBound]..<charStart[part.upperBound] { scratch.append(CChar(bitPattern: bytes[b])) }
            }
            scratch.append(0)
            total = scratch.withUnsafeBufferPointer { handle.width(ofCString: $0.baseAddress!, direction: direction) }
        } else {
            total = -kern
            for part in parts {
                for i in part {
                    if clusterWidths[i] < 0 {
                        scratch.removeAll(keepingCapacity: true)
                        for b in charStart[i]..<charStart[i + 1] { scratch.append(CChar(bitPattern: bytes[b])) }
                        scratch.append(0)
                        clusterWidths[i] = scratch.withUnsafeBufferPointer {
                            handle.width(ofCString: $0.baseAddress!, direction: direction)
                        }
                    }
                    total += clusterWidths[i] + kern
                }
            }
        }
        widthMemo[key] = total
        return total
    }

    /// The text of some characters.
    private func text(_ parts: [Range<Int>]) -> String {
        if parts.count == 1 {
            return String(decoding: bytes[charStart[parts[0].lowerBound]..<charStart[parts[0].upperBound]], as: UTF8.self)
        }
        var utf8: [UInt8] = []
        for part in parts { utf8.append(contentsOf: bytes[charStart[part.lowerBound]..<charStart[part.upperBound]]) }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// The width of drafts placed side by side: their widths plus the kern after each but the last.
    private func width(of drafts: [Draft]) -> Int {
        var total = 0
        for (i, draft) in drafts.enumerated() {
            total += draft.width
            if i + 1 < drafts.count { total += styles[draft.style].kernPixels }
        }
        return total
    }

    private func contentWidth(_ content: [Range<Int>]) -> Int { width(of: drafts(content)) }

    /// The index of the last of `count` candidates (ordered by growing width) that fits the
    /// available width, or nil if none does. Starts from the estimates, then checks by measuring.
    private func lastFitting(_ count: Int, estimate: (Int) -> Int, width: (Int) -> Int) -> Int? {
        guard count > 0 else { return nil }
        var i = 0
        while i + 1 < count && estimate(i + 1) <= available { i += 1 }
        if width(i) <= available {
            while i + 1 < count && width(i + 1) <= available { i += 1 }
            return i
        }
        while i > 0 {
            i -= 1
            if width(i) <= available { return i }
        }
        return nil
    }

    // MARK: - Breaking lines

    /// The end of the line that starts at `start` in the paragraph ending at `end` (the spaces
    /// after it included).
    private func lineEnd(from start: Int, paragraphEnd end: Int, mode: LineBreakMode) -> Int {
        // Collect break candidates while their estimated width fits, and one more.
        var candidates: [Int] = []
        var position = start
        while let next = nextBreak(after: position, lineStart: start, paragraphEnd: end, mode: mode) {
            candidates.append(next)
            if estimate(start, trimmedEnd(start, next)) > available { break }
            position = next
        }
        var i = 0
        while i + 1 < candidates.count && estimate(start, trimmedEnd(start, candidates[i + 1])) <= available { i += 1 }
        let fits = { (candidate: Int) -> Bool in
            self.contentWidth([start..<self.trimmedEnd(start, candidate)]) <= self.available
        }
        if fits(candidates[i]) {
            while true {
                if i + 1 >= candidates.count {
                    guard let more = nextBreak(after: candidates[i], lineStart: start, paragraphEnd: end, mode: mode) else {
                        break
                    }
                    candidates.append(more)
                }
                // Skip shaping the longer line when the measured line plus the estimate of what
                // it adds overflows by more than kerning and ligatures could ever take back.
                let known = trimmedEnd(start, candidates[i]), next = trimmedEnd(start, candidates[i + 1])
                let predicted = contentWidth([start..<known]) + estimate(known, next)
                if predicted - estimateTolerance * (next - known) - 2 > available { break }
                if fits(candidates[i + 1]) { i += 1 } else { break }
            }
            return candidates[i]
        }
        while i > 0 {
            i -= 1
            if fits(candidates[i]) { return candidates[i] }
        }
        // The first word does not fit alone: break it between characters (at least one).
        let wordEnd = trimmedEnd(start, candidates[0])
        let count = wordEnd - start
        let chosen =
            lastFitting(
                count, estimate: { self.estimate(start, start + 1 + $0) },
                width: { self.contentWidth([start..<(start + 1 + $0)]) }) ?? 0
        return start + 1 + chosen
    }

    /// The next place after `position` where the line may end: after a run of spaces, after a
    /// hyphen inside a word, at the paragraph's end, or (char wrapping) before any non-space.
    private func nextBreak(after position: Int, lineStart: Int, paragraphEnd end: Int, mode: LineBreakMode) -> Int? {
        guard position < end else { return nil }
        var k = position + 1
        while k < end {
            if !isSpace(k) {
                if mode == .charWrapping || isSpace(k - 1) { return k }
                if charFlags[k - 1].contains(.hyphen) && k - 1 > lineStart && !isSpace(k - 2)
                    && !charFlags[k - 2].contains(.hyphen)
                {
                    return k
                }
            }
            k += 1
        }
        return end
    }

    func build() throws(FontError) -> Output {
        guard mainCount > 0 else { return Output(lines: [], size: .zero, isTruncated: false, missingGlyphs: missing) }
        var drafts: [LineDraft] = []
        var lastContent = -1
        for i in 0..<mainCount where !charFlags[i].contains(.space) && !charFlags[i].contains(.newline) { lastContent = i }

        var truncated = false
        var paragraphStart = 0
        paragraphs: while true {
            var paragraphEnd = paragraphStart
            while paragraphEnd < mainCount && !charFlags[paragraphEnd].contains(.newline) { paragraphEnd += 1 }
            let hasNewline = paragraphEnd < mainCount
            let mode = styles[charStyle[min(paragraphStart, mainCount - 1)]].key.paragraphStyle.lineBreakMode
            var start = paragraphStart
            repeat {
                if maximumNumberOfLines > 0 && drafts.count == maximumNumberOfLines {
                    truncated = start <= lastContent
                    break paragraphs
                }
                let end = paragraphEnd > start ? lineEnd(from: start, paragraphEnd: paragraphEnd, mode: mode) : start
                let isLast = end >= paragraphEnd
                let lineEnd = isLast && hasNewline ? paragraphEnd + 1 : end
                drafts.append(
                    LineDraft(
                        start: start, end: lineEnd, content: [start..<trimmedEnd(start, end)],
                        paragraphStart: paragraphStart, isLastOfParagraph: isLast))
                start = end
            } while start < paragraphEnd
            guard hasNewline else { break }
            paragraphStart = paragraphEnd + 1
        }

        if truncated, var last = drafts.popLast() {
            try truncate(&last)
            drafts.append(last)
        }
        return place(drafts, isTruncated: truncated)
    }

    // MARK: - Truncation

    private func truncate(_ line: inout LineDraft) throws(FontError) {
        line.isTruncated = true
        let paragraphStyle = styles[charStyle[line.paragraphStart]].key.paragraphStyle
        if paragraphStyle.lineBreakMode == .clipping { return }
        let start = line.start
        let contentEnd = line.content.first?.upperBound ?? start
        var paragraphEnd = start
        while paragraphEnd < mainCount && !charFlags[paragraphEnd].contains(.newline) { paragraphEnd += 1 }
        let restEnd = trimmedEnd(start, paragraphEnd)

        // The truncation string takes what it lacks from the text next to the cut.
        let neighbour: Int
        switch paragraphStyle.lineBreakMode {
        case .truncatingHead: neighbour = max(start, min(restEnd, mainCount) - 1)
        default: neighbour = contentEnd > start ? contentEnd - 1 : start
        }
        let tokenStart = charStyle.count
        // In the paragraph's direction, so that "…" takes its place at the cut's side.
        let next = min(neighbour, mainCount - 1)
        try append(truncationString, inheriting: styles[charStyle[next]].key, rightToLeft: charParagraphRTL[next])
        let token = tokenStart..<charStyle.count
        // A truncation string wider than the whole line cannot mark the cut: clip the line as
        // the clipping mode does, rather than overflow the layout's width.
        if contentWidth([token]) > available { return }
        let tokenEstimate = estimate(token.lowerBound, token.upperBound)

        switch paragraphStyle.lineBreakMode {
        case .truncatingHead:
            // Keep the end of the paragraph: candidates from the most kept to the least, reversed.
            var starts: [Int] = [restEnd]
            var c = restEnd - 1
            while c >= start {
                if !isSpace(c) { starts.append(c) }
                c -= 1
            }
            let chosen =
                lastFitting(
                    starts.count, estimate: { tokenEstimate + self.estimate(starts[$0], restEnd) },
                    width: { self.contentWidth([token, starts[$0]..<restEnd]) }) ?? 0
            line.content = [token, starts[chosen]..<restEnd]
            line.start = starts[chosen]
            line.end = min(mainCount, paragraphEnd + 1)
        case .truncatingMiddle:
            let total = restEnd - start
            let parts = { (kept: Int) -> [Range<Int>] in
                let head = self.trimmedEnd(start, start + (kept + 1) / 2)
                var tail = restEnd - kept / 2
                while tail < restEnd && self.isSpace(tail) { tail += 1 }
                return [start..<head, token, tail..<restEnd]
            }
            let chosen =
                lastFitting(
                    total + 1, estimate: { tokenEstimate + self.estimate(start, start + $0) },
                    width: { self.contentWidth(parts($0)) }) ?? 0
            line.content = parts(chosen)
            line.end = min(mainCount, paragraphEnd + 1)
        default:
            // Tail: drop whole characters from the end (and the spaces they leave) until it fits.
            var ends: [Int] = [start]
            for c in (start + 1)...max(start + 1, contentEnd) where c <= contentEnd && !isSpace(c - 1) { ends.append(c) }
            let chosen =
                lastFitting(
                    ends.count, estimate: { self.estimate(start, ends[$0]) + tokenEstimate },
                    width: { self.contentWidth([start..<ends[$0], token]) }) ?? 0
            line.content = [start..<ends[chosen], token]
            line.end = ends[chosen]
        }
    }

    // MARK: - Placing

    private func place(_ drafts: [LineDraft], isTruncated: Bool) -> Output {
        struct Measured {
            var segments: [Draft]
            var width: Int
            var ascent: Int
            var below: Int
            var rightToLeft: Bool
            var alignment: TextAlignment
            var spacing: Int
        }
        var measured: [Measured] = []
        measured.reserveCapacity(drafts.count)
        var widest = 0
        var direction: (paragraph: Int, rightToLeft: Bool) = (-1, false)
        for draft in drafts {
            let paragraphStyle = styles[charStyle[min(draft.paragraphStart, mainCount - 1)]].key.paragraphStyle
            if direction.paragraph != draft.paragraphStart {
                // A paragraph runs right to left when its first strong character does (UAX #9's P2, P3).
                direction = (draft.paragraphStart, charParagraphRTL[min(draft.paragraphStart, mainCount - 1)])
            }
            let rightToLeft = direction.rightToLeft
            let justify =
                paragraphStyle.alignment == .justified && !draft.isLastOfParagraph
                && !draft.isTruncated && !unlimited
            var segments = self.drafts(draft.content, splittingSpaces: justify)
            var lineWidth = width(of: segments)
            if justify {
                let gaps = segments.indices.filter { segments[$0].isGap }
                if !gaps.isEmpty {
                    let extra = available - lineWidth
                    let base = extra / gaps.count
                    let remainder = extra - base * gaps.count
                    for (n, g) in gaps.enumerated() {
                        segments[g].width += base + (n < abs(remainder) ? remainder.signum() : 0)
                    }
                    lineWidth = available
                }
            }
            // Heights from the fonts drawn, or from the line's first character when it is empty.
            var ascent = 0, below = 0
            let used = segments.isEmpty ? [charStyle[min(draft.start, mainCount - 1)]] : segments.map(\.style)
            for s in used {
                let handle = styles[s].handle
                ascent = max(ascent, handle.ascent)
                below = max(below, handle.lineSkip - handle.ascent)
            }
            widest = max(widest, lineWidth)
            measured.append(
                Measured(
                    segments: segments, width: lineWidth, ascent: ascent, below: below,
                    rightToLeft: rightToLeft, alignment: paragraphStyle.alignment,
                    spacing: paragraphStyle.lineSpacing.isFinite
                        ? Int((min(10_000, max(-10_000, paragraphStyle.lineSpacing)) * scale).rounded()) : 0))
        }

        let box = unlimited ? widest : available
        var lines: [TextLayout.Line] = []
        lines.reserveCapacity(drafts.count)
        var y = 0
        for (index, (draft, line)) in zip(drafts, measured).enumerated() {
            if index > 0 { y += measured[index - 1].spacing }
            let slack = max(0, box - line.width)
            let offset: Int
            switch line.alignment {
            case .left, .justified: offset = line.rightToLeft && line.alignment == .justified ? slack : 0
            case .right: offset = slack
            case .center: offset = slack / 2
            case .natural: offset = line.rightToLeft ? slack : 0
            }
            let baseline = y + line.ascent
            // Visual order: the bidirectional algorithm's, by the segments' embedding levels.
            let order = Self.visualOrder(line.segments)
            var x = offset
            var segments: [TextLayout.Segment] = []
            var texts = [String](repeating: "", count: line.segments.count)
            for (n, i) in order.enumerated() {
                let draft = line.segments[i]
                if n > 0 {
                    // The kern after a character separates it from the next one in logical order.
                    let previous = line.segments[order[n - 1]]
                    x += styles[(line.rightToLeft ? draft : previous).style].kernPixels
                }
                let text = self.text(draft.parts)
                texts[i] = text
                if !draft.isGap {
                    segments.append(segment(draft, text: text, x: x, baseline: baseline))
                }
                x += draft.width
            }
            let range = attributedRange(draft.start, max(draft.start, draft.end))
            lines.append(
                TextLayout.Line(
                    range: range, text: texts.joined(),
                    origin: CGPoint(x: CGFloat(offset) / scale, y: CGFloat(y) / scale),
                    width: CGFloat(line.width) / scale, height: CGFloat(line.ascent + line.below) / scale,
                    baseline: CGFloat(baseline) / scale, segments: segments, isTruncated: draft.isTruncated))
            y += line.ascent + line.below
        }
        return Output(
            lines: lines, size: CGSize(width: CGFloat(widest) / scale, height: CGFloat(y) / scale),
            isTruncated: isTruncated, missingGlyphs: missing)
    }

    private func segment(_ draft: Draft, text: String, x: Int, baseline: Int) -> TextLayout.Segment {
        let style = styles[draft.style]
        var pieces: [(text: String, x: Int)] = []
        if style.kernPixels != 0 {
            var pen = 0
            for i in draft.parts.joined() {
                let w = clusterWidths[i]
                if !isSpace(i) {
                    pieces.append((self.text([i..<(i + 1)]), draft.script == nil ? pen : draft.width - pen - w))
                }
                pen += w + style.kernPixels
            }
        }
        return TextLayout.Segment(
            text: text, font: style.key.font, color: style.key.color, shadow: style.key.shadow,
            kern: style.key.kern, isRightToLeft: draft.script != nil,
            containsTruncationString: draft.parts.contains { $0.upperBound > mainCount },
            scale: scale, pixelX: x, pixelBaseline: baseline, pixelWidth: draft.width, handle: style.handle,
            direction: draft.script.map { .rightToLeft($0) } ?? .leftToRight, pieces: pieces)
    }

    /// The attributed string's range of main-string characters `start..<end`.
    private func attributedRange(_ start: Int, _ end: Int) -> Range<AttributedString.Index> {
        let lower = string.utf8.index(string.startIndex, offsetBy: charStart[min(start, mainCount)])
        let upper = string.utf8.index(string.startIndex, offsetBy: charStart[min(end, mainCount)])
        return lower..<upper
    }
}
