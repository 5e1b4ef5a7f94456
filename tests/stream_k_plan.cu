// The Stream-K plan of ex43's reference, run on the host (tests/stream_k_plan.sh):
// for many shapes, every k-block of every tile is done once, only a share's
// first piece starts inside a tile and only its last ends inside one, each cut
// tile has one owner, and the contributors the owner waits for are exactly the
// other pieces of its tile, in k order, each the first piece of its block (so
// that no block waits before it has handed over its partial sums).
#include "../solutions/ex43_stream_k.cu"

#include <vector>

static int failures;

#define EXPECT(cond, ...)                                                      \
    do {                                                                       \
        if (!(cond)) {                                                         \
            if (failures++ < 10) {                                             \
                printf("# tiles %d kblocks %d blocks %d: ", tiles, kblocks, blocks); \
                printf(__VA_ARGS__);                                           \
                printf("\n");                                                  \
            }                                                                  \
            return;                                                            \
        }                                                                      \
    } while (0)

static void check(int tiles, int kblocks, int blocks)
{
    const Plan p = make_plan(tiles, kblocks, blocks);
    EXPECT(p.dp_tiles >= 0 && p.dp_tiles <= tiles, "dp_tiles %d", p.dp_tiles);
    EXPECT(tiles % blocks != 0 || p.dp_tiles == tiles, "whole waves only, yet %d tiles shared", tiles - p.dp_tiles);
    std::vector<int> done((size_t)tiles * kblocks, 0);
    std::vector<int> owner(tiles, -1), first_piece_block(0);
    // the pieces with k_begin > 0, per tile: (k_begin, block)
    std::vector<std::vector<std::pair<int, int>>> later(tiles);
    for (int b = 0; b < blocks; ++b) {
        Walk w = walk_start(p, b);
        Segment s;
        int piece = 0, shared_pieces = 0;
        std::vector<Segment> mine;
        while (walk_next(p, w, s)) {
            EXPECT(s.tile >= 0 && s.tile < tiles && 0 <= s.k_begin && s.k_begin < s.k_end && s.k_end <= kblocks,
                   "block %d piece %d: tile %d k [%d, %d)", b, piece, s.tile, s.k_begin, s.k_end);
            for (int k = s.k_begin; k < s.k_end; ++k) done[(size_t)s.tile * kblocks + k]++;
            if (s.tile >= p.dp_tiles) shared_pieces++;
            mine.push_back(s);
            piece++;
        }
        const int n = (int)mine.size();
        for (int i = 0; i < n; ++i) {
            const Segment& m = mine[i];
            const bool first_shared = m.tile >= p.dp_tiles && (i == 0 || mine[i - 1].tile < p.dp_tiles);
            EXPECT(m.k_begin == 0 || first_shared, "block %d: piece %d starts at k-block %d, not first", b, i, m.k_begin);
            EXPECT(m.k_end == kblocks || i == n - 1, "block %d: piece %d ends at k-block %d, not last", b, i, m.k_end);
            if (m.k_begin > 0) later[m.tile].push_back({m.k_begin, b});
            if (m.k_begin == 0 && m.k_end < kblocks) {
                EXPECT(owner[m.tile] < 0, "tile %d owned twice", m.tile);
                owner[m.tile] = b;
            }
        }
    }
    for (size_t i = 0; i < done.size(); ++i)
        EXPECT(done[i] == 1, "tile %zu k-block %zu done %d times", i / kblocks, i % kblocks, done[i]);
    for (int t = 0; t < tiles; ++t) {
        if (later[t].empty()) {
            EXPECT(owner[t] < 0, "tile %d has an owner but no other pieces", t);
            continue;
        }
        EXPECT(owner[t] >= 0, "tile %d is cut but has no owner", t);
        // the owner's walk of the contributors: the same blocks, in k order, contiguous up to the tile's end
        Walk w = walk_start(p, owner[t]);
        Segment s, own{};
        while (walk_next(p, w, s))
            if (s.tile == t) own = s;
        int expect_k = own.k_end, count = 0;
        for (int j = next_contributor(p, own, owner[t] + 1); j >= 0; j = next_contributor(p, own, j + 1)) {
            EXPECT(count < (int)later[t].size(), "tile %d: more contributors than pieces", t);
            EXPECT(later[t][count].second == j && later[t][count].first == expect_k,
                   "tile %d: contributor %d at k-block %d, expected block %d at %d", t, j, expect_k,
                   later[t][count].second, later[t][count].first);
            Walk wj = walk_start(p, j);
            Segment sj;
            while (walk_next(p, wj, sj) && sj.tile < p.dp_tiles) {
            }
            EXPECT(sj.tile == t && sj.k_begin == expect_k, "tile %d: block %d's first shared piece is elsewhere", t, j);
            expect_k = sj.k_end;
            count++;
        }
        EXPECT(count == (int)later[t].size() && expect_k == kblocks, "tile %d: contributors end at k-block %d of %d", t,
               expect_k, kblocks);
    }
}

int main()
{
    int n = 0;
    // the timed shapes' tiles (128 x 256) and k-blocks (64), on an H100's 132 SMs and others
    const int shapes[][2] = {{40 * 12, 64}, {32 * 16, 64}, {64 * 32, 128}, {33 * 9, 4}, {1, 1}, {1, 64},
                             {3, 2}, {132, 64}, {133, 64}, {264, 7}, {131, 1}, {2, 1000}};
    for (const auto& s : shapes)
        for (int blocks : {132, 114, 78, 1, 2, 7}) {
            const int before = failures;
            check(s[0], s[1], blocks);
            printf("%s %d - stream-K plan: %d tiles of %d k-blocks on %d blocks\n", failures == before ? "ok" : "not ok",
                   ++n, s[0], s[1], blocks);
        }
    const int before = failures;
    for (int tiles = 1; tiles <= 300; ++tiles)
        for (int kblocks = 1; kblocks <= 9; ++kblocks)
            for (int blocks : {1, 2, 3, 5, 16, 132}) check(tiles, kblocks, blocks);
    printf("%s %d - stream-K plan: every shape up to 300 tiles, 9 k-blocks\n", failures == before ? "ok" : "not ok", ++n);
    printf("1..%d\n", n);
    return failures != 0;
}
