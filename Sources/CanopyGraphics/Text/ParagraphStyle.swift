import Foundation

/// How the lines of a paragraph sit in the layout's width.
public enum TextAlignment: Sendable, Hashable, CaseIterable {
    case left
    case right
    case center
    /// Every line but the last of a paragraph fills the width exactly: the extra space is spread
    /// over its inter-word spaces. The last line is aligned naturally.
    case justified
    /// Left for left-to-right paragraphs, right for right-to-left ones (decided by the
    /// paragraph's first strongly directional character).
    case natural
}

/// How lines are broken and what happens to the text that does not fit, as NSLineBreakMode.
///
/// Every mode but `charWrapping` wraps at word boundaries (spaces, and after hyphens) and breaks
/// inside a word only when it cannot fit on a line alone. The modes differ when the text needs
/// more lines than `maximumNumberOfLines`: the last kept line is then truncated at its tail
/// (`wordWrapping`, `charWrapping`, `truncatingTail`), at its head or in its middle (the head
/// and middle modes work on the rest of that line's paragraph, so one line shows its end), or
/// simply cut with no truncation string (`clipping`).
public enum LineBreakMode: Sendable, Hashable, CaseIterable {
    case wordWrapping
    /// Wraps at any character (grapheme cluster) boundary.
    case charWrapping
    case clipping
    case truncatingHead
    case truncatingTail
    case truncatingMiddle
}

/// Paragraph-level attributes: alignment, extra space between lines and the line-break mode.
/// The style of a paragraph's first character applies to the whole paragraph.
public struct ParagraphStyle: Sendable, Hashable {
    public var alignment: TextAlignment
    /// Extra points between consecutive lines (also between the last line of a paragraph and
    /// the next paragraph's first).
    public var lineSpacing: CGFloat
    public var lineBreakMode: LineBreakMode

    public init(
        alignment: TextAlignment = .natural, lineSpacing: CGFloat = 0,
        lineBreakMode: LineBreakMode = .wordWrapping
    ) {
        self.alignment = alignment
        self.lineSpacing = lineSpacing
        self.lineBreakMode = lineBreakMode
    }

    /// Natural alignment, no line spacing, word wrapping.
    public static let `default` = ParagraphStyle()
}
