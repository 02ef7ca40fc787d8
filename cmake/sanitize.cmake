# GPP_SANITIZE: AddressSanitizer + UndefinedBehaviorSanitizer on every host C++ object and link
# (gcc 12 or clang 14). Undefined behaviour aborts (-fno-sanitize-recover) so a test that meets
# it fails instead of printing a warning and passing.
#
# GPP_FUZZ (clang only) adds libFuzzer's coverage instrumentation (-fsanitize=fuzzer-no-link) to
# the same objects, so the libraries the fuzz targets link against report the edges they reach;
# the fuzz targets themselves link with -fsanitize=fuzzer (fuzz/CMakeLists.txt). The test suite
# links and runs in that build as well: the instrumentation only counts.
if(GPP_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "GPP_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  set(GPP_SANITIZE ON CACHE BOOL "" FORCE)
endif()

if(GPP_SANITIZE)
  set(gpp_sanitize_flags -fsanitize=address,undefined -fno-sanitize-recover=undefined
      -fno-omit-frame-pointer)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    list(APPEND gpp_sanitize_flags -gline-tables-only)  # file:line in the reports, cheaply
  else()
    list(APPEND gpp_sanitize_flags -g1)
  endif()
  set(gpp_compile_flags ${gpp_sanitize_flags})
  if(GPP_FUZZ)
    list(APPEND gpp_compile_flags -fsanitize=fuzzer-no-link)
  endif()
  foreach(flag IN LISTS gpp_compile_flags)
    add_compile_options($<$<COMPILE_LANGUAGE:CXX>:${flag}>)
  endforeach()
  add_link_options(-fsanitize=address,undefined)
endif()
