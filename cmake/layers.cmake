# The layers of delegate/ and what each may include. Every source includes our
# headers by their layer path ("ir/graph.h", "runtime/program.h"); a layer's
# library compiles against a folder of links to its own layer and the layers
# it may use, and nothing else, so an include against the rules fails to build.
#
#   kernels   -> kernels
#   ir        -> (nothing of ours)
#   ops       -> ir
#   plan      -> ir, ops
#   runtime   -> ir, ops, kernels            (never plan)
#   frontends -> all of the above; nothing includes a front end
set(FD_LAYER_SEES_kernels kernels)
set(FD_LAYER_SEES_ir ir)
set(FD_LAYER_SEES_ops ops ir)
set(FD_LAYER_SEES_plan plan ir ops)
set(FD_LAYER_SEES_runtime runtime ir ops kernels)
set(FD_LAYER_SEES_frontends frontends ir ops plan runtime kernels)
set(FD_LAYER_DIR ${CMAKE_CURRENT_SOURCE_DIR}/delegate)

# fd_layer_view(VAR NAME LAYER...): a folder of links to the given layers.
function(fd_layer_view var name)
  set(view ${CMAKE_BINARY_DIR}/layers/${name})
  file(REMOVE_RECURSE ${view})
  file(MAKE_DIRECTORY ${view})
  foreach(layer ${ARGN})
    file(CREATE_LINK ${FD_LAYER_DIR}/${layer} ${view}/${layer} SYMBOLIC)
  endforeach()
  set(${var} ${view} PARENT_SCOPE)
endfunction()

# A relative include ("../plan/planner.h") would step around the views.
function(fd_check_no_relative_includes layer)
  file(GLOB_RECURSE files CONFIGURE_DEPENDS ${FD_LAYER_DIR}/${layer}/*.h ${FD_LAYER_DIR}/${layer}/*.cc)
  foreach(f ${files})
    file(STRINGS ${f} bad REGEX "^[ \t]*#[ \t]*include[ \t]*\"[.][.]/")
    if(bad)
      message(FATAL_ERROR "${f}: include our headers by their layer path, not relative: ${bad}")
    endif()
  endforeach()
endfunction()

# fd_layer(TARGET LAYER SOURCES... [DEPS target...]): the layer's static library.
function(fd_layer target layer)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  fd_check_no_relative_includes(${layer})
  fd_layer_view(view ${layer} ${FD_LAYER_SEES_${layer}})
  add_library(${target} STATIC ${ARG_SOURCES})
  target_include_directories(${target} PRIVATE ${view})
  target_link_libraries(${target} PUBLIC ${ARG_DEPS})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
endfunction()
