import CanopyGraphics
import Foundation

/// The project's files as the tests find them: the package root, Resources, and the fonts.
public enum TestResources {
    /// The package root, two folders above this file.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // CanopyTestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// Resources/ (cards.json, images/, fonts/).
    public static let resources = packageRoot.appendingPathComponent("Resources")

    /// Resources/images.
    public static let images = resources.appendingPathComponent("images")

    /// Resources/fonts (the Lato faces).
    public static let fontsDirectory = resources.appendingPathComponent("fonts").path
}

/// The fonts the tests draw with: the Lato faces of Resources/fonts, Lato being the default
/// family (as Rainforest makes it: Canopy names no family of its own).
public enum TestFonts {
    /// The family the tests' text is in.
    public static let family = "Lato"

    /// A registry of the tests' own, apart from `FontRegistry.shared` (which the app's code and
    /// the SDL backend use): the Lato faces, Lato the default family.
    public static let registry: FontRegistry = {
        let registry = FontRegistry()
        registry.registerFonts(inDirectory: TestResources.fontsDirectory)
        registry.defaultFamily = family
        return registry
    }()

    /// Registers the Lato faces in `FontRegistry.shared`, Lato its default family, as the app
    /// does at start-up. Returns how many faces it registered.
    @discardableResult
    public static func registerShared() -> Int {
        let count = FontRegistry.shared.registerFonts(inDirectory: TestResources.fontsDirectory)
        FontRegistry.shared.defaultFamily = family
        return count
    }
}
