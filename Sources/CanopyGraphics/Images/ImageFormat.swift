/// The image file formats whose size `ImageHeader` can read.
public enum ImageFormat: String, Sendable, Equatable, CaseIterable {
    case png, jpeg, webp, gif, bmp, heif, avif

    /// The format's usual written name: "PNG", "JPEG", "WebP", "GIF", "BMP", "HEIF", "AVIF".
    public var displayName: String {
        switch self {
        case .png: return "PNG"
        case .jpeg: return "JPEG"
        case .webp: return "WebP"
        case .gif: return "GIF"
        case .bmp: return "BMP"
        case .heif: return "HEIF"
        case .avif: return "AVIF"
        }
    }
}
