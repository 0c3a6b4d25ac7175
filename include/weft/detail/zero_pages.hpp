// weft — memory that is fresh zero pages, committed only as it is touched (src/zero_pages.cpp): the
// task stacks' frames and the deques' slots.
#pragma once

#include <cstddef>

namespace weft::detail {

// `bytes` of fresh zero pages in a mapping of their own (calloc's memory is that only sometimes);
// throws std::bad_alloc.
void* map_zero_pages(std::size_t bytes);
void unmap_zero_pages(void* p, std::size_t bytes) noexcept;

}  // namespace weft::detail
