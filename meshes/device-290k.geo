// device-290k.geo -- bipolar transistor mesh of about 290k nodes (the seed
// paper's 290k mesh); the geometry and refinement are in device-common.inc.
// gmsh 4.8.4, Debian 12, 2 cores:
//   gmsh -3 -format msh41 -o device-290k.msh meshes/device-290k.geo
//   -> 290279 nodes, 1733269 tets, 132 s wall
sc = 0.34;
Include "device-common.inc";
