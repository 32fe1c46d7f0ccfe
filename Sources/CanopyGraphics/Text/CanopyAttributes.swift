import Foundation

extension AttributeScopes {
    /// The attributes CanopyGraphics draws text with. Reach them as `string.canopy.font = ...`,
    /// or directly (`string.font`, `run.foregroundColor`) through dynamic member lookup.
    public struct CanopyAttributes: AttributeScope {
        /// The font (family, weight, slant, size). Text without one uses `TextLayout.defaultFont`.
        public let font: FontAttribute
        /// The text's colour. Text without one is drawn in `TextLayout.defaultForegroundColor`.
        public let foregroundColor: ForegroundColorAttribute
        /// Extra points after each character (not after a line's last), as NSAttributedString's
        /// kern. Characters with a non-zero kern are drawn one by one.
        public let kern: KernAttribute
        /// A shadow drawn under the glyphs.
        public let shadow: ShadowAttribute
        /// Alignment, line spacing and line-break mode; the style of a paragraph's first
        /// character applies to the whole paragraph.
        public let paragraphStyle: ParagraphStyleAttribute

        public enum FontAttribute: AttributedStringKey {
            public typealias Value = Font
            public static let name = "CanopyGraphics.font"
        }
        public enum ForegroundColorAttribute: AttributedStringKey {
            public typealias Value = Color
            public static let name = "CanopyGraphics.foregroundColor"
        }
        public enum KernAttribute: AttributedStringKey {
            public typealias Value = CGFloat
            public static let name = "CanopyGraphics.kern"
        }
        public enum ShadowAttribute: AttributedStringKey {
            public typealias Value = TextShadow
            public static let name = "CanopyGraphics.shadow"
        }
        public enum ParagraphStyleAttribute: AttributedStringKey {
            public typealias Value = ParagraphStyle
            public static let name = "CanopyGraphics.paragraphStyle"
        }
    }

    /// CanopyGraphics' text attributes: `string.canopy.font = ...`.
    public var canopy: CanopyAttributes.Type { CanopyAttributes.self }
}

extension AttributeDynamicLookup {
    /// Lets `string.font`, `run.foregroundColor` and `container.kern` name CanopyGraphics' keys.
    public subscript<T: AttributedStringKey>(
        dynamicMember keyPath: KeyPath<AttributeScopes.CanopyAttributes, T>
    ) -> T {
        self[T.self]
    }
}

extension AttributeContainer {
    /// A container with CanopyGraphics' attributes; nil arguments are left unset.
    public static func canopy(
        font: Font? = nil, color: Color? = nil, kern: CGFloat? = nil,
        shadow: TextShadow? = nil, paragraphStyle: ParagraphStyle? = nil
    ) -> AttributeContainer {
        var container = AttributeContainer()
        container.canopy.font = font
        container.canopy.foregroundColor = color
        container.canopy.kern = kern
        container.canopy.shadow = shadow
        container.canopy.paragraphStyle = paragraphStyle
        return container
    }
}

extension AttributedString {
    /// A string with one set of CanopyGraphics attributes; nil arguments are left unset.
    public init(
        _ string: String, font: Font, color: Color? = nil, kern: CGFloat? = nil,
        shadow: TextShadow? = nil, paragraphStyle: ParagraphStyle? = nil
    ) {
        self.init(
            string,
            attributes: .canopy(
                font: font, color: color, kern: kern, shadow: shadow,
                paragraphStyle: paragraphStyle))
    }
}
