// What the references decide on the host (tests/host_plans.sh).
//
// ex43's split-K plan: for many shapes, every k-block of every tile is done
// once, every tile is written once (whole, or by the owner of its parts), the
// parts of a cut tile are contiguous in k and numbered in k order, the owner
// is the last part and the contributors it waits for are exactly the other
// parts, each taken by its block at the same turn as the owner's or an
// earlier one (so that no owner waits for a block that waits for it), and the
// whole waves come first.
//
// ex33's and ex44's tile width (pick_width): 232 or 240 columns at
// 5000 x 3000 x 4096, 256 at 4096^3, and at 8192^3 256 (ex33) or 240 (ex44),
// as docs/benchmarks.md says and measured; and each width their kernels are
// built for is launched at one of the exercises' sizes (read from the
// chapters' YAML by tests/host_plans.sh), so the grade checks both.
#include <cuda.h>  // the solutions' headers first, outside the namespaces
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// Each solution in a namespace of its own (they share helpers' names), with
// its extern "C" solve renamed: one solve per program.
#define solve ex43_solve
namespace ex43 {
#include "../solutions/ex43_split_k.cu"
}
#undef solve
#define solve ex33_solve
namespace ex33 {
#include "../solutions/ex33_wgmma_fast.cu"
}
#undef solve
#define solve ex44_solve
namespace ex44 {
#include "../solutions/ex44_cluster_multicast.cu"
}
#undef solve
using namespace ex43;

#include <vector>

static int failures;

#define EXPECT(cond, ...)                                                                   \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            if (failures++ < 10) {                                                          \
                printf("# tiles %d kblocks %d blocks %d: ", tiles, kblocks, blocks);        \
                printf(__VA_ARGS__);                                                        \
                printf("\n");                                                               \
            }                                                                               \
            return;                                                                         \
        }                                                                                   \
    } while (0)

static void check(int tiles, int kblocks, int blocks)
{
    const Plan p = make_plan(tiles, kblocks, blocks);
    EXPECT(p.dp_tiles >= 0 && p.dp_tiles <= tiles && p.dp_tiles % blocks == 0, "dp_tiles %d", p.dp_tiles);
    EXPECT(p.parts >= 1 && p.parts <= kblocks && p.parts <= 8, "parts %d", p.parts);
    std::vector<int> done((size_t)tiles * kblocks, 0), writes(tiles, 0);
    std::vector<Segment> owner(tiles, Segment{-1, 0, 0, -1});
    std::vector<int> turn_of_piece(plan_pieces(p), -1), block_of_piece(plan_pieces(p), -1);
    for (int b = 0; b < blocks; ++b) {
        Segment s;
        bool in_pieces = false;
        for (int turn = 0; walk_next(p, b, turn, s);) {
            EXPECT(s.tile >= 0 && s.tile < tiles && 0 <= s.k_begin && s.k_begin < s.k_end && s.k_end <= kblocks,
                   "block %d turn %d: tile %d k [%d, %d)", b, turn, s.tile, s.k_begin, s.k_end);
            EXPECT(!in_pieces || s.piece >= 0, "block %d: a whole tile after a piece", b);
            in_pieces = s.piece >= 0;
            for (int k = s.k_begin; k < s.k_end; ++k) done[(size_t)s.tile * kblocks + k]++;
            EXPECT(!(is_owner(p, s) && is_contributor(p, s)), "piece %d both owner and contributor", s.piece);
            if (s.piece < 0) {
                EXPECT(s.k_begin == 0 && s.k_end == kblocks && s.tile < p.dp_tiles, "block %d: whole tile %d", b, s.tile);
                writes[s.tile]++;
                continue;
            }
            EXPECT(s.piece < plan_pieces(p) && turn_of_piece[s.piece] < 0, "piece %d walked twice", s.piece);
            turn_of_piece[s.piece] = turn;
            block_of_piece[s.piece] = b;
            if (!is_contributor(p, s)) writes[s.tile]++;
            if (is_owner(p, s)) owner[s.tile] = s;
            EXPECT(p.parts > 1 || (s.k_begin == 0 && s.k_end == kblocks), "tile %d cut with parts = 1", s.tile);
        }
    }
    for (size_t i = 0; i < done.size(); ++i)
        EXPECT(done[i] == 1, "tile %zu k-block %zu done %d times", i / kblocks, i % kblocks, done[i]);
    for (int t = 0; t < tiles; ++t) EXPECT(writes[t] == 1, "tile %d written %d times", t, writes[t]);
    if (p.parts == 1) return;
    for (int t = p.dp_tiles; t < tiles; ++t) {
        const Segment& o = owner[t];
        EXPECT(o.piece >= 0 && o.k_end == kblocks, "tile %d: no owner with its last k-block", t);
        int k = 0;
        for (int j = o.piece - (p.parts - 1); j < o.piece; ++j) {  // the owner's walk of its contributors
            const Segment c = piece_at(p, j);
            EXPECT(c.tile == t && c.k_begin == k && is_contributor(p, c), "tile %d: contributor %d at k-block %d", t, j,
                   c.k_begin);
            EXPECT(turn_of_piece[j] >= 0 && turn_of_piece[j] <= turn_of_piece[o.piece],
                   "tile %d: contributor %d (block %d) at turn %d, after the owner's %d", t, j, block_of_piece[j],
                   turn_of_piece[j], turn_of_piece[o.piece]);
            k = c.k_end;
        }
        EXPECT(k == o.k_begin, "tile %d: contributors end at k-block %d, the owner starts at %d", t, k, o.k_begin);
    }
}

int main(int argc, char** argv)
{
    int n = 0;
    // the timed shapes' tiles (128 x 256) and k-blocks (64), on an H100's 132 SMs and others
    const int shapes[][2] = {{40 * 12, 64}, {24 * 12, 128}, {36 * 16, 128}, {32 * 16, 64}, {64 * 32, 128},
                             {33 * 9, 16}, {1, 1}, {1, 64}, {3, 2}, {132, 64}, {133, 64}, {264, 7}, {131, 1}, {2, 1000}};
    for (const auto& s : shapes)
        for (int blocks : {132, 114, 78, 1, 2, 7}) {
            const int before = failures;
            check(s[0], s[1], blocks);
            const Plan p = make_plan(s[0], s[1], blocks);
            printf("%s %d - split-K plan: %d tiles of %d k-blocks on %d blocks (%d whole, %d parts)\n",
                   failures == before ? "ok" : "not ok", ++n, s[0], s[1], blocks, p.dp_tiles, p.parts);
        }
    int before = failures;
    for (int tiles = 1; tiles <= 300; ++tiles)
        for (int kblocks = 1; kblocks <= 20; ++kblocks)
            for (int blocks : {1, 2, 3, 5, 16, 132}) check(tiles, kblocks, blocks);
    printf("%s %d - split-K plan: every shape up to 300 tiles, 20 k-blocks\n", failures == before ? "ok" : "not ok", ++n);
    // the plan cuts where it pays: a tail of 24 tiles of 128 k-blocks on 132 blocks
    before = failures;
    {
        const int tiles = 288, kblocks = 128, blocks = 132;
        const Plan p = make_plan(tiles, kblocks, blocks);
        EXPECT(p.parts > 1 && p.dp_tiles == 264, "3072 x 3072 x 8192: %d whole, %d parts", p.dp_tiles, p.parts);
    }
    printf("%s %d - split-K plan: 3072 x 3072 x 8192's last 24 tiles are cut\n", failures == before ? "ok" : "not ok", ++n);

    // the tile's width: ex33 on 132 SMs, ex44 on 66 clusters of two
    const int timed[][2] = {{4096, 4096}, {8192, 8192}, {5000, 3000}};
    const int ex33_widths[] = {256, 256, 232}, ex44_widths[] = {256, 240, 240};
    for (int i = 0; i < 3; ++i) {
        const int w33 = ex33::pick_width(timed[i][0], timed[i][1], 132);
        const int w44 = ex44::pick_width(timed[i][0], timed[i][1], 66);
        printf("%s %d - tile width at %d x %d: ex33 %d (expected %d), ex44 %d (expected %d)\n",
               w33 == ex33_widths[i] && w44 == ex44_widths[i] ? "ok" : "not ok", ++n, timed[i][0], timed[i][1], w33,
               ex33_widths[i], w44, ex44_widths[i]);
        failures += w33 != ex33_widths[i] || w44 != ex44_widths[i];
    }
    // ex33's and ex44's sizes from their chapters' YAML (tests/host_plans.sh): "ex33 M N" or "ex44 M N"
    bool wide33 = false, narrow33 = false, wide44 = false, narrow44 = false;
    int given = 0;
    for (int i = 1; i + 2 < argc; i += 3, ++given) {
        const int M = atoi(argv[i + 1]), N = atoi(argv[i + 2]);
        if (strcmp(argv[i], "ex33") == 0)
            (ex33::pick_width(M, N, 132) == ex33::WIDE ? wide33 : narrow33) = true;
        else
            (ex44::pick_width(M, N, 66) == ex44::WIDE ? wide44 : narrow44) = true;
    }
    const bool both = given > 0 && wide33 && narrow33 && wide44 && narrow44;
    printf("%s %d - tile width: the exercises' %d sizes launch both of ex33's widths and both of ex44's\n",
           both ? "ok" : "not ok", ++n, given);
    failures += !both;
    printf("1..%d\n", n);
    return failures != 0;
}
