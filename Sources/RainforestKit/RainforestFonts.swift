import CanopyGraphics
import Foundation

/// Rainforest's type: Lato (Resources/fonts), registered at start-up as the registry's default
/// family, so that Canopy's own text (an image's error state, a button's title) is in it too.
enum RainforestFonts {
    static let family = "Lato"

    /// Lato at `size` points.
    static func lato(_ size: CGFloat, weight: FontWeight = .regular) -> Font {
        Font(family: family, size: size, weight: weight)
    }
}
