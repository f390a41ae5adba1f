# The engine's folders, bottom-up, each with the folders it may use. Each folder is a static
# library whose files see only its own folder and those below it: its include root
# (build/layers/<folder>) holds links to them alone, so an upward include does not compile.
# A folder must come after every folder it names (so the graph has no cycle).
# tests/layers/check_layers.cmake (ctest "layers") checks the includes and a probe.
set(L30_LAYERS
  "core"
  "http: core"
  "model: core"
  "proc: core"
  "persist: core"
  "sources: core http model proc"
  "pipeline: core http model sources"
  "render: core model sources"
  "store: core model persist"
  "notify: core http"
  "synth: core http model render sources"
  "discover: core http model persist pipeline sources store"
  "app: core discover http model notify persist pipeline proc render sources store synth"
  "mcp: app core discover model render sources"
  "cli: app core discover http model notify persist pipeline render sources store synth"
  "program: app cli core discover mcp persist")

set(L30_LAYER_NAMES "")
set(L30_LAYER_ROOT ${CMAKE_BINARY_DIR}/layers)
set(_layers_file "")
foreach(entry IN LISTS L30_LAYERS)
  string(FIND "${entry}" ":" colon)
  if(colon EQUAL -1)
    set(layer "${entry}")
    set(deps "")
  else()
    string(SUBSTRING "${entry}" 0 ${colon} layer)
    math(EXPR colon "${colon} + 1")
    string(SUBSTRING "${entry}" ${colon} -1 deps)
    separate_arguments(deps UNIX_COMMAND "${deps}")
  endif()
  set(closure ${layer})
  foreach(d IN LISTS deps)
    if(NOT d IN_LIST L30_LAYER_NAMES)
      message(FATAL_ERROR "layers: ${layer} uses ${d}, which is not listed below it")
    endif()
    list(APPEND closure ${L30_CLOSURE_${d}})
  endforeach()
  list(REMOVE_DUPLICATES closure)
  list(SORT closure)
  set(L30_CLOSURE_${layer} ${closure})
  set(L30_DEPS_${layer} ${deps})
  list(APPEND L30_LAYER_NAMES ${layer})
  string(APPEND _layers_file "set(L30_CLOSURE_${layer} \"${closure}\")\n")

  set(root ${L30_LAYER_ROOT}/${layer})
  file(REMOVE_RECURSE ${root})
  file(MAKE_DIRECTORY ${root})
  foreach(d IN LISTS closure)
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${d} ${root}/${d} SYMBOLIC)
  endforeach()
endforeach()
string(APPEND _layers_file "set(L30_LAYER_NAMES \"${L30_LAYER_NAMES}\")\n")
file(WRITE ${L30_LAYER_ROOT}/layers.cmake "${_layers_file}")
