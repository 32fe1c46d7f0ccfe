/*
 * bare-sdl-floor: the compositor's floor drawn with nothing but SDL calls.
 *
 * `rainforest bench --scenario compositor` writes the scene of a scroll (the window, the
 * collection's viewport, the cards' rects in content pixels and whether each is opaque) and runs
 * this program on it. It opens a hidden window on SDL's offscreen video driver with the same
 * renderer the bench uses and draws the scroll's frames as fast as the renderer takes them (after
 * a first, untimed pass over the same frames that makes the textures: one for each card of a size
 * on screen at once, as the floor's layers have): clear, clip to the viewport, each visible card's texture copied
 * 1:1 at whole pixels with nearest sampling, opaque cards without blending and the others with
 * premultiplied blending, then present. After the last frame it reads a pixel back, so the time
 * includes the renderer's work, and prints "ms_per_frame X renderer NAME frames N".
 *
 * The scroll moves like the bench's (BouncingScroll): `speed` pixels a second, `1 / refresh`
 * seconds a frame, bouncing between 0 and `end`.
 *
 * It is kept minimal on purpose: what it does not do, Canopy's compositor could not need to.
 */
#include <SDL2/SDL.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int x, y, w, h, opaque, texture;
} Card;

/* The textures of one card size: as many as cards of that size are on screen at once, like the
   compositor's floor, whose layers of one bitmap each have a texture of their own. */
typedef struct {
    int w, h, opaque;
    SDL_Texture **textures;
    int count, used;
} Texture;

static int fail(const char *what) {
    fprintf(stderr, "bare-sdl-floor: %s: %s\n", what, SDL_GetError());
    return 1;
}

/* A texture of w x h pixels: a premultiplied gradient, opaque or with alpha 0.8. */
static SDL_Texture *make_texture(SDL_Renderer *renderer, int w, int h, int opaque, SDL_BlendMode premultiplied) {
    SDL_Texture *texture =
        SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ABGR8888, SDL_TEXTUREACCESS_STATIC, w, h);
    if (!texture) return NULL;
    Uint32 *pixels = malloc((size_t)w * (size_t)h * 4);
    if (!pixels) {
        SDL_DestroyTexture(texture);
        return NULL;
    }
    Uint32 a = opaque ? 255 : 204;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            Uint32 r = (Uint32)(x * 255 / w) * a / 255, g = (Uint32)(y * 255 / h) * a / 255, b = 96 * a / 255;
            pixels[(size_t)y * (size_t)w + (size_t)x] = r | (g << 8) | (b << 16) | (a << 24);
        }
    }
    SDL_UpdateTexture(texture, NULL, pixels, w * 4);
    free(pixels);
    SDL_SetTextureBlendMode(texture, opaque ? SDL_BLENDMODE_NONE : premultiplied);
    SDL_SetTextureScaleMode(texture, SDL_ScaleModeNearest);
    return texture;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: bare-sdl-floor SCENE\n");
        return 2;
    }
    FILE *file = fopen(argv[1], "r");
    if (!file) {
        fprintf(stderr, "bare-sdl-floor: cannot open %s\n", argv[1]);
        return 1;
    }
    int width = 0, height = 0, frames = 300;
    SDL_Rect viewport = {0, 0, 0, 0};
    double end = 0, speed = 0, refresh = 60;
    Card *cards = NULL;
    int count = 0, capacity = 0;
    char line[256];
    int number = 0;
    while (fgets(line, sizeof line, file)) {
        number++;
        Card c;
        int ok = 1;
        if (strncmp(line, "window ", 7) == 0) ok = sscanf(line + 7, "%d %d", &width, &height) == 2;
        else if (strncmp(line, "viewport ", 9) == 0)
            ok = sscanf(line + 9, "%d %d %d %d", &viewport.x, &viewport.y, &viewport.w, &viewport.h) == 4;
        else if (strncmp(line, "end ", 4) == 0) ok = sscanf(line + 4, "%lf", &end) == 1;
        else if (strncmp(line, "speed ", 6) == 0) ok = sscanf(line + 6, "%lf", &speed) == 1;
        else if (strncmp(line, "refresh ", 8) == 0) ok = sscanf(line + 8, "%lf", &refresh) == 1 && refresh > 0;
        else if (strncmp(line, "frames ", 7) == 0) ok = sscanf(line + 7, "%d", &frames) == 1 && frames > 0;
        else if (strncmp(line, "card ", 5) == 0) {
            ok = sscanf(line + 5, "%d %d %d %d %d", &c.x, &c.y, &c.w, &c.h, &c.opaque) == 5 && c.w > 0 && c.h > 0;
            if (ok) {
                if (count == capacity) {
                    capacity = capacity ? capacity * 2 : 256;
                    cards = realloc(cards, (size_t)capacity * sizeof(Card));
                    if (!cards) return 1;
                }
                cards[count++] = c;
            }
        } else ok = line[0] == '\n' || line[0] == '#';
        if (!ok) {
            fprintf(stderr, "bare-sdl-floor: %s:%d: cannot read \"%.*s\"\n", argv[1], number,
                    (int)strcspn(line, "\n"), line);
            return 1;
        }
    }
    fclose(file);
    if (width <= 0 || height <= 0) {
        fprintf(stderr, "bare-sdl-floor: %s: no window size\n", argv[1]);
        return 1;
    }

    SDL_SetHintWithPriority(SDL_HINT_VIDEODRIVER, "offscreen", SDL_HINT_OVERRIDE);
    SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
    if (SDL_Init(SDL_INIT_VIDEO) != 0) return fail("SDL_Init");
    SDL_Window *window = SDL_CreateWindow("bare-sdl-floor", 0, 0, width, height, SDL_WINDOW_HIDDEN);
    if (!window) return fail("SDL_CreateWindow");
    SDL_Renderer *renderer = SDL_CreateRenderer(window, -1, SDL_RENDERER_ACCELERATED);
    if (!renderer) return fail("SDL_CreateRenderer");
    SDL_RendererInfo info;
    SDL_GetRendererInfo(renderer, &info);
    SDL_BlendMode premultiplied =
        SDL_ComposeCustomBlendMode(SDL_BLENDFACTOR_ONE, SDL_BLENDFACTOR_ONE_MINUS_SRC_ALPHA, SDL_BLENDOPERATION_ADD,
                                   SDL_BLENDFACTOR_ONE, SDL_BLENDFACTOR_ONE_MINUS_SRC_ALPHA, SDL_BLENDOPERATION_ADD);

    /* The card sizes and opacities; their textures are made as the scroll first needs them. */
    Texture *textures = calloc((size_t)(count ? count : 1), sizeof(Texture));
    int distinct = 0;
    for (int i = 0; i < count; i++) {
        int t = 0;
        while (t < distinct && !(textures[t].w == cards[i].w && textures[t].h == cards[i].h &&
                                 textures[t].opaque == cards[i].opaque))
            t++;
        if (t == distinct) {
            textures[t].w = cards[i].w;
            textures[t].h = cards[i].h;
            textures[t].opaque = cards[i].opaque;
            textures[t].textures = calloc((size_t)count, sizeof(SDL_Texture *));
            if (!textures[t].textures) return 1;
            distinct++;
        }
        cards[i].texture = t;
    }

    Uint32 pixel;
    SDL_Rect one = {0, 0, 1, 1};
    Uint64 start = 0;
    /* Twice over the same frames: the first pass makes the textures (unmeasured), the second is timed. */
    for (int pass = 0; pass < 2; pass++) {
        double position = 0;
        int down = 1;
        if (pass == 1) {
            SDL_RenderReadPixels(renderer, &one, SDL_PIXELFORMAT_ABGR8888, &pixel, 4);
            start = SDL_GetPerformanceCounter();
        }
        for (int frame = 0; frame < frames; frame++) {
            position += down ? speed / refresh : -speed / refresh;
            if (position >= end) { position = end > 0 ? end : 0; down = 0; }
            if (position <= 0) { position = 0; down = 1; }
            int offset = (int)(position + 0.5);
            SDL_RenderSetClipRect(renderer, NULL);
            SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255);
            SDL_RenderClear(renderer);
            SDL_RenderSetClipRect(renderer, &viewport);
            for (int t = 0; t < distinct; t++) textures[t].used = 0;
            for (int i = 0; i < count; i++) {
                Card *c = &cards[i];
                if (c->y + c->h <= offset || c->y >= offset + viewport.h) continue;
                Texture *t = &textures[c->texture];
                if (t->used == t->count) {
                    t->textures[t->count] = make_texture(renderer, t->w, t->h, t->opaque, premultiplied);
                    if (!t->textures[t->count]) return fail("SDL_CreateTexture");
                    t->count++;
                }
                SDL_Rect to = {viewport.x + c->x, viewport.y + c->y - offset, c->w, c->h};
                SDL_RenderCopy(renderer, t->textures[t->used++], NULL, &to);
            }
            SDL_RenderPresent(renderer);
        }
    }
    SDL_RenderReadPixels(renderer, &one, SDL_PIXELFORMAT_ABGR8888, &pixel, 4);
    double seconds = (double)(SDL_GetPerformanceCounter() - start) / (double)SDL_GetPerformanceFrequency();
    printf("ms_per_frame %.3f renderer %s frames %d\n", seconds * 1000 / frames, info.name, frames);
    for (int t = 0; t < distinct; t++) {
        for (int k = 0; k < textures[t].count; k++) SDL_DestroyTexture(textures[t].textures[k]);
        free(textures[t].textures);
    }
    free(textures);
    free(cards);
    SDL_DestroyRenderer(renderer);
    SDL_DestroyWindow(window);
    SDL_Quit();
    return 0;
}
