import Foundation

/// An RGBA colour with straight (not premultiplied) components in 0...1, as UIKit's UIColor has it.
public struct Color: Sendable, Hashable, CustomStringConvertible {
    public var red: CGFloat
    public var green: CGFloat
    public var blue: CGFloat
    public var alpha: CGFloat

    public init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat = 1) {
        self.red = Color.clamp(red)
        self.green = Color.clamp(green)
        self.blue = Color.clamp(blue)
        self.alpha = Color.clamp(alpha)
    }

    /// A grey: `white` 0 is black, 1 is white.
    public init(white: CGFloat, alpha: CGFloat = 1) {
        self.init(red: white, green: white, blue: white, alpha: alpha)
    }

    /// Hue, saturation and brightness in 0...1, as UIColor(hue:saturation:brightness:alpha:).
    public init(hue: CGFloat, saturation: CGFloat, brightness: CGFloat, alpha: CGFloat = 1) {
        let finiteHue = hue.isFinite ? hue : 0
        let h = (finiteHue - finiteHue.rounded(.down)) * 6
        let s = Color.clamp(saturation), v = Color.clamp(brightness)
        let sector = Int(h) % 6
        let f = h - CGFloat(Int(h))
        let p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f))
        let (r, g, b): (CGFloat, CGFloat, CGFloat)
        switch sector {
        case 0: (r, g, b) = (v, t, p)
        case 1: (r, g, b) = (q, v, p)
        case 2: (r, g, b) = (p, v, t)
        case 3: (r, g, b) = (p, q, v)
        case 4: (r, g, b) = (t, p, v)
        default: (r, g, b) = (v, p, q)
        }
        self.init(red: r, green: g, blue: b, alpha: alpha)
    }

    /// 8-bit components, e.g. `Color(rgb8: 30, 90, 50)`.
    public init(rgb8 red: Int, _ green: Int, _ blue: Int, alpha: CGFloat = 1) {
        self.init(red: CGFloat(red) / 255, green: CGFloat(green) / 255, blue: CGFloat(blue) / 255, alpha: alpha)
    }

    public func withAlpha(_ alpha: CGFloat) -> Color {
        Color(red: red, green: green, blue: blue, alpha: alpha)
    }

    /// The colour composited over black: itself when opaque (what an opaque surface shows of it).
    public var opaqueOverBlack: Color {
        Color(red: red * alpha, green: green * alpha, blue: blue * alpha, alpha: 1)
    }

    /// The colour as 8-bit straight RGBA.
    public var rgba8: (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        (Color.byte(red), Color.byte(green), Color.byte(blue), Color.byte(alpha))
    }

    /// The colour as 8-bit premultiplied RGBA, the layout of `Bitmap` pixels.
    public var premultipliedRGBA8: (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        (Color.byte(red * alpha), Color.byte(green * alpha), Color.byte(blue * alpha), Color.byte(alpha))
    }

    /// Premultiplied components as Floats 0...255, unrounded (unlike `premultipliedRGBA8`): the
    /// paint `GraphicsContext` blends with and gradients interpolate.
    var premultipliedFloats: SIMD4<Float> {
        let a = Float(alpha)
        return SIMD4(Float(red) * a * 255, Float(green) * a * 255, Float(blue) * a * 255, a * 255)
    }

    public var description: String {
        String(format: "Color(r: %.3f, g: %.3f, b: %.3f, a: %.3f)", red, green, blue, alpha)
    }

    public static let black = Color(white: 0)
    public static let white = Color(white: 1)
    public static let clear = Color(white: 0, alpha: 0)
    public static let red = Color(red: 1, green: 0, blue: 0)
    public static let green = Color(red: 0, green: 1, blue: 0)
    public static let blue = Color(red: 0, green: 0, blue: 1)
    public static let orange = Color(red: 1, green: 0.5, blue: 0)
    public static let yellow = Color(red: 1, green: 1, blue: 0)

    private static func clamp(_ v: CGFloat) -> CGFloat { v.isNaN ? 0 : min(1, max(0, v)) }
    private static func byte(_ v: CGFloat) -> UInt8 { UInt8(clamp(v) * 255 + 0.5) }
}
