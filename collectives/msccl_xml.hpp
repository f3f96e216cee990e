// collectives/msccl_xml.hpp — MSCCL's XML IR (microsoft/msccl, what MSCCLang and TACCL
// write) read into collsim's schedule IR, and collsim's schedules written out in it.
//
// The format: <algo name ngpus nchunksperloop coll ...> holds one <gpu id> per rank, each
// holding threadblocks <tb id send recv chan>, each a list of <step s type srcbuf srcoff dstbuf
// dstoff cnt depid deps hasdep>. A threadblock runs its steps in order; a step also waits for
// step `deps` of threadblock `depid` of its GPU (-1: none). Sends of a threadblock go to its
// `send` peer and are received, in order, by the threadblock of that peer whose `recv` is this
// GPU on the same `chan`. Offsets and counts are in chunks: the buffer is cut into
// `nchunksperloop` equal chunks.
//
// What collsim reads (docs/schedule-format.md, "MSCCL XML"): allreduce, allgather,
// reduce_scatter and alltoall (broadcast and reduce: MSCCL's XML names no root). Buffers i and
// o lie in collsim's one data buffer as MSCCL's in-place forms alias them (an allgather's input
// is the rank's part of its output, a reduce-scatter's output the rank's part of its input),
// the alltoall's output is collsim's receive buffer, s is scratch after them; step types s
// (send), r (receive), rrc (receive and reduce into dst, whose src must be dst), rcs (receive,
// then send it on), rrcs (rrc, then send the result on), cpy (local copy), re (local reduce of
// src into dst), nop. Each send and its receive become one transfer whose dependencies are
// both sides' (the previous step of each threadblock, and each step's depid/deps). Sends are
// buffered: the next step of a threadblock does not wait for its send, a step naming the send
// in depid/deps waits for the transfer. A file that is malformed or that collsim does not read
// is refused with its line.
#pragma once

#include <cstdint>
#include <string>

#include "collectives/schedule.hpp"

namespace collsim {

// The schedule of MSCCL XML `text` at `bytes` per rank (a multiple of nchunksperloop);
// `origin` names it in errors ("FILE:LINE: ..."). Structure only: the checker proves the rest.
Schedule parse_msccl_xml(const std::string& text, const std::string& origin, std::uint64_t bytes);
Schedule load_msccl_xml(const std::string& path, std::uint64_t bytes);  // throws Error naming the file

// `schedule` (any of the four collectives above, whose chunks are whole multiples of one chunk
// size; collsim_segments carries a pipelined schedule's segments) as MSCCL XML:
// per GPU one threadblock for each peer it sends to, one for each it receives from, one for
// its local copies and reductions; a transfer's dependencies become its steps' depid/deps
// (with nop steps where it has several). Throws Error where MSCCL cannot express it.
std::string schedule_to_msccl_xml(const Schedule& schedule);

}  // namespace collsim
