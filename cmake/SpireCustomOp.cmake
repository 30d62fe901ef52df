# spire_add_custom_op(<name> SOURCES <file>... [LINK_LIBRARIES <lib>...] [OUTPUT_DIRECTORY <dir>])
#
# Builds a plugin of custom ops: a MODULE library (lib<name>.so) compiled as C++20 against the
# engine's headers and linked to libspire_engine, to be opened at run time with
# spire::load_library(path) / spire.custom.load_library(path). Sources define ops with
# SPIRE_DEFINE_OP and SPIRE_REGISTER_KERNEL (engine/core/op.h); see examples/custom_op/.
#
# Inside the Spire build tree (add_subdirectory, or include() after the engine is defined) it links
# the `spire_engine` target. Elsewhere, point it at a Spire checkout and the engine it was built
# into before including this file:
#   set(SPIRE_SOURCE_DIR /path/to/spire)                         # the headers: engine/...
#   set(SPIRE_ENGINE_LIBRARY /path/to/build/lib/libspire_engine.so)  # or site-packages/spire/...
#   include(${SPIRE_SOURCE_DIR}/cmake/SpireCustomOp.cmake)
# Build with the compiler and standard library that built the engine: ops cross the library
# boundary as C++ objects (std::function, std::vector), so the C++ ABI must match.
include_guard(GLOBAL)

function(_spire_custom_op_engine out)
  if(TARGET spire_engine)
    set(${out} spire_engine PARENT_SCOPE)
    return()
  endif()
  if(NOT TARGET spire::engine_imported)
    if(NOT SPIRE_SOURCE_DIR)
      get_filename_component(SPIRE_SOURCE_DIR "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/.." ABSOLUTE)
    endif()
    if(NOT SPIRE_ENGINE_LIBRARY OR NOT EXISTS "${SPIRE_ENGINE_LIBRARY}")
      message(FATAL_ERROR "spire_add_custom_op: no spire_engine target here; set SPIRE_ENGINE_LIBRARY "
                          "to the built libspire_engine.so (now '${SPIRE_ENGINE_LIBRARY}')")
    endif()
    if(NOT EXISTS "${SPIRE_SOURCE_DIR}/engine/core/op.h")
      message(FATAL_ERROR "spire_add_custom_op: SPIRE_SOURCE_DIR='${SPIRE_SOURCE_DIR}' holds no "
                          "engine/core/op.h; set it to a Spire checkout")
    endif()
    add_library(spire::engine_imported SHARED IMPORTED GLOBAL)
    set_target_properties(spire::engine_imported PROPERTIES
                          IMPORTED_LOCATION "${SPIRE_ENGINE_LIBRARY}"
                          INTERFACE_INCLUDE_DIRECTORIES "${SPIRE_SOURCE_DIR}")
  endif()
  set(${out} spire::engine_imported PARENT_SCOPE)
endfunction()

function(spire_add_custom_op name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY" "SOURCES;LINK_LIBRARIES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "spire_add_custom_op(${name}): give the op sources with SOURCES")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "spire_add_custom_op(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  _spire_custom_op_engine(engine)
  add_library(${name} MODULE ${ARG_SOURCES})
  target_compile_features(${name} PRIVATE cxx_std_20)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON PREFIX "lib")
  find_package(OpenMP QUIET)  # kernels may use #pragma omp, as the engine's do
  if(OpenMP_CXX_FOUND)
    target_link_libraries(${name} PRIVATE OpenMP::OpenMP_CXX)
  endif()
  # The engine is already in the process that loads the plugin; linking it records the dependency
  # (and lets the linker check the engine symbols the plugin uses).
  target_link_libraries(${name} PRIVATE ${engine} ${ARG_LINK_LIBRARIES})
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}")
  endif()
endfunction()
