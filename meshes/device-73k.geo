// device-73k.geo -- bipolar transistor mesh of about 73k nodes (the seed
// paper's 73k mesh); the geometry and refinement are in device-common.inc.
// gmsh 4.8.4, Debian 12, 2 cores:
//   gmsh -3 -format msh41 -o device-73k.msh meshes/device-73k.geo
//   -> 73442 nodes, 425752 tets, 23.1 s wall
sc = 0.551;
Include "device-common.inc";
