# What keeps a build from scratch short (docs/testing.md, "Build time"): a
# fresh machine builds everything three times in `./dw test` (g++, and clang
# with ASan+UBSan and with TSan), and `./dw up` once.
#
# - Precompiled headers: the heavy third-party and standard headers that most
#   units read (nlohmann/json and spdlog with fmt take most of a unit's parse),
#   parsed once per library instead of once per unit. DW_PCH=OFF turns them off
#   (to check that each unit includes what it uses, for one).
# - lld links when the toolchain has it (`./dw` installs it): the test binaries
#   and the fuzz targets link the whole library, which ld.bfd takes many
#   seconds over.
include(CheckLinkerFlag)

option(DW_PCH "Precompile the heavy headers most units include" ON)
# The libraries' units too: on with clang (the sanitizer builds); off with g++,
# whose optimiser (12, at -O2) then reports false -Warray-bounds errors in
# std::string's inlined copies (the included headers' order changes what it
# inlines).
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  set(DW_PCH_LIBRARIES_DEFAULT ON)
else()
  set(DW_PCH_LIBRARIES_DEFAULT OFF)
endif()
option(DW_PCH_LIBRARIES "Precompiled headers for the libraries' units too" ${DW_PCH_LIBRARIES_DEFAULT})

set(DW_PCH_HEADERS
  <algorithm> <atomic> <chrono> <cstdint> <functional> <map> <memory> <mutex> <optional>
  <set> <string> <string_view> <thread> <unordered_map> <utility> <variant> <vector>
  <nlohmann/json.hpp> <spdlog/spdlog.h>)

# Gives each target named its precompiled headers: the common set, plus
# `EXTRA header...`; with LIBRARIES, only when DW_PCH_LIBRARIES is on.
function(dw_precompile)
  cmake_parse_arguments(PCH "LIBRARIES" "" "TARGETS;EXTRA" ${ARGN})
  if(NOT DW_PCH OR (PCH_LIBRARIES AND NOT DW_PCH_LIBRARIES))
    return()
  endif()
  foreach(t IN LISTS PCH_TARGETS)
    target_precompile_headers(${t} PRIVATE ${DW_PCH_HEADERS} ${PCH_EXTRA})
  endforeach()
endfunction()

check_linker_flag(CXX "-fuse-ld=lld" DW_HAVE_LLD)
if(DW_HAVE_LLD)
  add_link_options(-fuse-ld=lld)
endif()
