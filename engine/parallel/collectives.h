// Collectives as differentiable engine ops. Each is an OpDef (engine/core/op.h) that names its
// communicator by id (the int64 attribute "comm"; Communicator::find maps it back), runs through
// the communicator in its kernel, and has the rules of every other op: its reverse rule is its
// transpose, its forward and Taylor rules run the same collective on the tangents, and its batch
// rule treats the mapped axis as data.
//
//   op                       reverse rule (transpose)
//   all_reduce sum           all_reduce sum          (every rank's output depends on every input)
//   all_reduce mean          all_reduce mean
//   all_reduce max / min     the cotangents summed over ranks, to where the extreme was attained
//   all_gather axis          reduce_scatter sum along axis
//   reduce_scatter sum/mean  all_gather (/ size for mean); max / min as all_reduce's
//   all_to_all split, concat all_to_all concat, split (the axes swapped)
//   broadcast root           the cotangents summed to root (all_reduce sum, zero off root)
//   permute pairs            permute with the pairs reversed (the inverse permutation)
//
// send, recv and barrier are plain functions, not ops: they carry no derivative (point-to-point
// gradients go through permute), and a registry op must run in one process, where point-to-point
// has no partner (the self communicator refuses sends to itself, which could never be matched).
//
// SPMD: every rank of a communicator must make the same collective calls in the same order, and
// that holds for the rules too. So no rule skips its collective where a rank's tangent, series
// coefficient or gradient happens to be missing: it runs on zeros instead, and rules build graphs
// of the same structure on every rank (broadcast's reverse rule masks with `where` rather than
// returning zeros off root), so that differentiating them again issues the same calls everywhere.
// What remains the program's duty: every rank differentiates the same function (the loss on each
// rank must reach each collective's output whenever it does on one rank).
//
// Ties of max / min (as jnp.max and spire's amax): the gradient is shared evenly among every
// element, on every rank, that attains the extreme. (JAX's lax.pmax has no derivative rule at all,
// jax-ml/jax#7167; this is the convention of its reductions, carried across ranks.)
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/parallel/communicator.h"
#include "engine/parallel/runtime.h"

namespace spire::parallel {

// Every rank gets the reduction of all ranks' x (same shape and dtype on every rank). Max and
// min refuse complex numbers, mean refuses integers and bool.
Tensor all_reduce(const Tensor& x, ReduceOp op = ReduceOp::Sum, const Communicator& comm = world());
Tensor all_reduce(const Tensor& x, const std::string& op, const Communicator& comm = world());
// The ranks' x concatenated along `axis` in rank order: shape[axis] grows by the factor size().
Tensor all_gather(const Tensor& x, int64_t axis = 0, const Communicator& comm = world());
// x split into size() chunks along `axis` (shape[axis] divisible by size()); rank r gets the
// reduction over ranks of chunk r.
Tensor reduce_scatter(const Tensor& x, int64_t axis = 0, ReduceOp op = ReduceOp::Sum,
                      const Communicator& comm = world());
Tensor reduce_scatter(const Tensor& x, int64_t axis, const std::string& op, const Communicator& comm = world());
// x split into size() chunks along split_axis; chunk j goes to rank j, and rank r concatenates the
// chunks it receives along concat_axis in the order of their senders. With split_axis ==
// concat_axis the shape is kept (MPI_Alltoall on that axis).
Tensor all_to_all(const Tensor& x, int64_t split_axis = 0, int64_t concat_axis = 0,
                  const Communicator& comm = world());
// Root's x on every rank (the others' x give only the shape and dtype).
Tensor broadcast(const Tensor& x, int root = 0, const Communicator& comm = world());
// Collective permute (JAX's ppermute): for each pair (src, dst), rank dst receives src's x; a rank
// that is nobody's destination gets zeros. Each rank is at most one pair's source and at most one
// pair's destination. The differentiable form of point-to-point communication.
Tensor permute(const Tensor& x, const std::vector<std::pair<int, int>>& pairs,
               const Communicator& comm = world());

// Point to point, not differentiable (the received tensor has no history; x's gradient does not
// flow to the receiver): a blocking send of x to rank dst, and the matching receive of a tensor of
// the given shape and dtype from rank src with the same tag (0 <= tag < kMaxTag). Not inside vmap.
void send(const Tensor& x, int dst, int tag = 0, const Communicator& comm = world());
Tensor recv(const Shape& shape, DType dtype, int src, int tag = 0, const Communicator& comm = world());
// Returns once every rank of comm has entered it.
void barrier(const Communicator& comm = world());

// User tags are below this; permute's messages use tags at and above it, so they never match a
// user's send/recv.
constexpr int kMaxTag = 30000;

}  // namespace spire::parallel
